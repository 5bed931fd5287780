import { lookup as dnsLookup, type LookupAddress } from "node:dns";
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

/** The code of the error a guarded lookup fails with for an internal address. */
export const REFUSED_ADDRESS = "ERR_REFUSED_ADDRESS";

/**
 * dns.lookup that refuses internal addresses, for outgoing requests to URLs that others chose
 * (webhooks, model outputs). It runs when the connection is made, so a host that resolved to a
 * public address when checked and to a private one now (DNS rebinding) is refused.
 */
export function guardedLookup(hostname: string, options: object, callback: (...args: unknown[]) => void) {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error);
    const bad = addresses.find((a) => isInternalAddress(a.address));
    if (bad) {
      const refused: NodeJS.ErrnoException = new Error(
        `refusing to connect to internal address ${bad.address}`,
      );
      refused.code = REFUSED_ADDRESS;
      return callback(refused);
    }
    if ((options as { all?: boolean }).all) return callback(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}
