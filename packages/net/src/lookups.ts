// DNS lookups that refuse addresses at connection time, for every request to an address that an
// operator or a user gave: checked when the socket is made, so a name that resolved to a public
// address when it was checked and to a private one now (DNS rebinding) is still refused.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isInternalAddress, isMetadataAddress, REFUSED_ADDRESS } from "@svc/core";

/** dns.lookup that refuses the addresses `refused` says, at connection time. */
export function lookupRefusing(refused: (address: string) => boolean) {
  return (hostname: string, options: object, callback: (...args: unknown[]) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error);
      const bad = addresses.find((a) => refused(a.address));
      if (bad) {
        const refusal: NodeJS.ErrnoException = new Error(`refusing to connect to address ${bad.address}`);
        refusal.code = REFUSED_ADDRESS;
        return callback(refusal);
      }
      if ((options as { all?: boolean }).all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** For URLs that others chose (webhooks, file inputs, model outputs): no internal address. */
export const guardedLookup = lookupRefusing(isInternalAddress);

/**
 * For an operator's model servers, which are usually on private networks: only link-local and
 * cloud metadata addresses refused.
 */
export const serverLookup = lookupRefusing(isMetadataAddress);
