import ipaddr from "ipaddr.js";

const v4 = (bytes: number[], at: number, mask = 0) =>
  new ipaddr.IPv4(bytes.slice(at, at + 4).map((b) => b ^ mask));
const zeros = (bytes: number[], from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);

/**
 * The IPv4 addresses an IPv6 address carries, by the standard forms that route to them:
 * IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), SIIT (::ffff:0:a.b.c.d), NAT64
 * (64:ff9b::/96), 6to4 (2002:AABB:CCDD::/48) and Teredo (2001:0::/32: its server, and its client
 * XOR 0xff). Null when it carries none.
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const b = address.toByteArray();
  const word = (i: number) => (b[i]! << 8) | b[i + 1]!;
  if (zeros(b, 0, 10) && word(10) === 0xffff) return [v4(b, 12)];
  if (zeros(b, 0, 12)) return [v4(b, 12)];
  if (zeros(b, 0, 8) && word(8) === 0xffff && word(10) === 0) return [v4(b, 12)];
  if (word(0) === 0x64 && word(2) === 0xff9b && zeros(b, 4, 12)) return [v4(b, 12)];
  if (word(0) === 0x2002) return [v4(b, 2)];
  if (word(0) === 0x2001 && word(2) === 0) return [v4(b, 4), v4(b, 12, 0xff)];
  return null;
}

/**
 * True for any address a URL that others chose (a webhook, a file input, an output) must not reach: loopback, private, link-local (including the
 * 169.254.169.254 metadata service), CGNAT, unique-local, multicast, unspecified, reserved, and
 * every IPv6 form that embeds an IPv4 address, judged by that address (and NAT64's local-use
 * 64:ff9b:1::/48, whose embedding depends on the network, always). Only globally routable
 * unicast passes.
 */
export function isInternalAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6") {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.match(ipaddr.IPv6.parse("64:ff9b:1::"), 48)) return true;
    const inner = embeddedIPv4(v6);
    if (inner) return inner.some((a) => a.range() !== "unicast");
  }
  return parsed.range() !== "unicast";
}

/**
 * Cloud metadata services outside the link-local ranges: AWS's IPv6 IMDS and Alibaba Cloud's.
 * (AWS, GCP, Azure and Oracle answer at 169.254.169.254, which is link-local.)
 */
const METADATA_ADDRESSES = ["fd00:ec2::254", "100.100.100.200"].map((a) => ipaddr.parse(a).toString());

/**
 * True for an address no model server may have, though model servers usually sit on private
 * networks: link-local (169.254.0.0/16, fe80::/10, where cloud metadata services answer) and the
 * metadata services elsewhere, in every IPv6 form that embeds such an IPv4 address. An unparsable
 * address is refused too.
 */
export function isMetadataAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return true;
  const parsed = ipaddr.parse(address);
  const inner = parsed.kind() === "ipv6" ? embeddedIPv4(parsed as ipaddr.IPv6) : null;
  return [parsed, ...(inner ?? [])].some(
    (a) => a.range() === "linkLocal" || METADATA_ADDRESSES.includes(a.toString()),
  );
}

/** The code of the error a guarded lookup fails with for an internal address. */
export const REFUSED_ADDRESS = "ERR_REFUSED_ADDRESS";
