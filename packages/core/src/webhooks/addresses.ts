import ipaddr from "ipaddr.js";

/**
 * True for any address a webhook must not reach: loopback, private, link-local (including the
 * 169.254.169.254 metadata service), CGNAT, unique-local, multicast, unspecified, reserved,
 * and IPv4-mapped IPv6 forms of those. Only globally routable unicast passes.
 */
export function isInternalAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() !== "unicast";
}
