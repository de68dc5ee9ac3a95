#!/usr/bin/env node
// Runs the MCP peer suite (@modelcontextprotocol/conformance) against a running server's
// /mcp. The suite's client sends no API key and trusts no self-signed certificate, so this
// script puts a small local proxy in front: it adds `Authorization: Bearer <key>` and speaks
// HTTPS to the server, trusting the certificate given.
//
//   EVMON_MCP_URL=https://localhost:8443/mcp EVMON_MCP_KEY=evk_… [EVMON_MCP_CA=cert.pem] \
//     node scripts/mcp-conformance.mjs [scenario …]
//
// Without scenarios it runs those that apply to a tools-only server: server-initialize, ping,
// tools-list. Exits non-zero when any fails.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';

const target = new URL(process.env.EVMON_MCP_URL ?? 'https://localhost:8443/mcp');
const key = process.env.EVMON_MCP_KEY;
if (!key) {
  process.stderr.write('EVMON_MCP_KEY: an API key is needed (any scope; tools-list shows the tools of its scopes)\n');
  process.exit(2);
}
const ca = process.env.EVMON_MCP_CA ? fs.readFileSync(process.env.EVMON_MCP_CA) : undefined;
const scenarios = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['server-initialize', 'ping', 'tools-list'];

const proxy = http.createServer((request, response) => {
  const headers = { ...request.headers, host: target.host, authorization: `Bearer ${key}` };
  const upstream = https.request(
    {
      hostname: target.hostname,
      port: target.port,
      path: target.pathname,
      method: request.method,
      headers,
      ca,
      ...(net.isIP(target.hostname) ? {} : { servername: target.hostname }),
    },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    },
  );
  upstream.on('error', (error) => {
    response.writeHead(502, { 'content-type': 'text/plain' });
    response.end(`proxy: ${error.message}`);
  });
  request.pipe(upstream);
});
await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const proxyUrl = `http://127.0.0.1:${proxy.address().port}/mcp`;

const bin = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
let failed = 0;
for (const scenario of scenarios) {
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, 'server', '--url', proxyUrl, '--scenario', scenario], { stdio: 'inherit' });
    child.on('exit', (status) => resolve(status ?? 1));
  });
  process.stdout.write(`${scenario}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`}\n`);
  if (code !== 0) failed++;
}
proxy.close();
process.exit(failed === 0 ? 0 : 1);
