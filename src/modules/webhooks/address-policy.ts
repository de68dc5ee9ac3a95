// Which addresses a webhook may reach (decisions.md, "Webhook deliveries"): public unicast
// only. Private, loopback, link-local (cloud metadata at 169.254.169.254 included), carrier-
// grade NAT, unique-local, multicast, reserved and translated ranges are refused; an IPv4
// address written as IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address it is. The one rule:
// the transport applies it to every address it connects to, and sensors to IP literals in
// webhook URLs when they are saved (decisions.md, 2026-11-25).
import net from 'node:net';
import ipaddr from 'ipaddr.js';

export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
    // The deprecated IPv4-compatible form (::a.b.c.d) reaches IPv4 on some stacks: refused.
    else if (v6.parts.slice(0, 6).every((part) => part === 0)) return false;
  }
  return parsed.range() === 'unicast';
}

/**
 * The URL's host when it is an IP address literal outside public space, else null. The URL
 * parser has already normalized odd IPv4 forms (`0x7f.1`, `2130706433`, `127.1`) to dotted
 * quads; IPv6 literals come bracketed.
 */
export function nonPublicLiteralHost(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return net.isIP(host) !== 0 && !isPublicAddress(host) ? host : null;
}

/** A connection the address policy refused; the attempt fails without reaching the network. */
export class AddressRefusedError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    // For the server log only: customers read the same words for this and an unknown name.
    super(`refused: ${host} resolves to ${address}, not a public address`);
  }
}
