// Which addresses a webhook may reach (decisions.md, "Webhook deliveries"): public unicast
// only. Private, loopback, link-local (cloud metadata at 169.254.169.254 included), carrier-
// grade NAT, unique-local, multicast, reserved and translated ranges are refused; an IPv4
// address written as IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address it is.
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
