// A secret for the command line to take (a console user's password): never a flag, which other
// users of the machine see in `ps` and the shell keeps in its history, but standard input.
// Piped (`printf '%s\n' "$PASSWORD" | evmon …`), its first line; at a terminal, typed after a
// prompt on standard error and not echoed.
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';

/** The first line of standard input, without its line ending; null when there is none. */
export async function readSecretLine(prompt: string): Promise<string | null> {
  return process.stdin.isTTY ? askWithoutEcho(prompt) : firstLinePiped();
}

async function firstLinePiped(): Promise<string | null> {
  let text = '';
  for await (const chunk of process.stdin.setEncoding('utf8')) {
    text += chunk;
    if (text.includes('\n')) break;
  }
  const end = text.indexOf('\n');
  if (end === -1 && text === '') return null;
  return (end === -1 ? text : text.slice(0, end)).replace(/\r$/, '');
}

function askWithoutEcho(prompt: string): Promise<string> {
  let echo = true;
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (echo) process.stderr.write(chunk);
      done();
    },
  });
  const terminal = createInterface({ input: process.stdin, output, terminal: true });
  return new Promise((resolve) => {
    terminal.question(prompt, (answer) => {
      terminal.close();
      process.stderr.write('\n');
      resolve(answer);
    });
    echo = false; // the prompt is written; what is typed after it is not
  });
}
