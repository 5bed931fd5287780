/**
 * The fakes' clock for when work starts and ends on a server: epoch ms with a fraction, so that
 * idle gaps of a few ms are measured, not rounded to whole ms (Date.now()).
 */
export const preciseNow = () => performance.timeOrigin + performance.now();
