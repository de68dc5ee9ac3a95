// Which addresses a webhook may reach (decisions.md, "Webhook deliveries"): public unicast
// only. Private, loopback, link-local (cloud metadata at 169.254.169.254 included), carrier-
// grade NAT, unique-local, multicast, reserved and translated ranges are refused; an IPv4
// address written as IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address it is.
import ipaddr from 'ipaddr.js';

export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

/** A connection the address policy refused; the attempt fails without reaching the network. */
export class AddressRefusedError extends Error {
  readonly code = 'EVMON_ADDRESS_REFUSED';
  constructor(host: string, address: string) {
    super(host === address ? `refused: ${address} is not a public address` : `refused: ${host} resolves to ${address}, not a public address`);
  }
}
