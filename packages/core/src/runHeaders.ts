// The run requests' own headers: how long a request may wait (Prefer: wait, RFC 7240) and when a
// run is canceled by its deadline (Cancel-After).

export const WAIT_MAX_SECONDS = 60;

/**
 * The seconds of `Prefer: wait` or `Prefer: wait=N` (RFC 7240), or null when the header asks for
 * no wait. N outside 1..60 is an error the caller reports; other preferences are ignored.
 */
export function parsePreferWait(header: string | undefined): number | null | "invalid" {
  if (!header) return null;
  for (const preference of header.split(",")) {
    const [name, value] = preference
      .split(";")[0]!
      .split("=", 2)
      .map((s) => s.trim());
    if (name?.toLowerCase() !== "wait") continue;
    if (value === undefined || value === "") return WAIT_MAX_SECONDS;
    const seconds = /^"?(\d{1,4})"?$/.exec(value)?.[1];
    if (!seconds) return "invalid";
    const n = Number(seconds);
    return n >= 1 && n <= WAIT_MAX_SECONDS ? n : "invalid";
  }
  return null;
}

export const CANCEL_AFTER_MIN_MS = 1_000;
export const CANCEL_AFTER_MAX_MS = 24 * 3_600_000;
const UNIT_MS = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 } as const;

/**
 * Milliseconds of a `Cancel-After` duration: Go-style `1h30m`, `5m`, `30s`, `1500ms`, or a bare
 * number of seconds; null when malformed or outside 1 s..24 h.
 */
export function parseCancelAfter(value: string): number | null {
  const text = value.trim().toLowerCase();
  let ms: number;
  if (/^\d{1,6}$/.test(text)) ms = Number(text) * 1_000;
  else {
    if (!/^(\d{1,6}(h|ms|m|s))+$/.test(text)) return null;
    ms = 0;
    for (const [, n, unit] of text.matchAll(/(\d+)(h|ms|m|s)/g))
      ms += Number(n) * UNIT_MS[unit as keyof typeof UNIT_MS];
  }
  return ms >= CANCEL_AFTER_MIN_MS && ms <= CANCEL_AFTER_MAX_MS ? ms : null;
}
