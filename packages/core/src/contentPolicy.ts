/**
 * A prompt breaks the content policy when it contains a blocked term as a whole word or phrase,
 * ignoring case and runs of spaces or punctuation between words.
 */
export function blockedTerm(prompt: string, blocklist: readonly string[]): string | null {
  const normalise = (text: string) =>
    ` ${text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, " ")
      .trim()} `;
  const haystack = normalise(prompt);
  for (const term of blocklist) {
    const needle = normalise(term);
    if (needle.trim() && haystack.includes(needle)) return term;
  }
  return null;
}
