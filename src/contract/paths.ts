/* Resource paths of the interface, shared by the client and the sandbox, and which ids can be in one. No imports: the client loads it at start-up. */

/** "." and ".." are valid ids but dot segments to URL handling, even as %2E: written as %2E and never resolved. */
const idSegment = (eventId: string) =>
  eventId === '.' || eventId === '..' ? eventId.replaceAll('.', '%2E') : encodeURIComponent(eventId);

/**
 * Whether an id can name a resource in a URL: it is well-formed Unicode. A lone surrogate
 * (possible in a JSON string) has no UTF-8 form to percent-encode. With the u flag the class
 * matches only unpaired halves: a pair is one code point.
 */
export const canBeInPath = (eventId: string): boolean => !/[\ud800-\udfff]/u.test(eventId);

/** `/event/{eventId}` plus an optional suffix such as `/state`, with the id path-encoded. */
export const eventPath = (eventId: string, suffix = '') => `/event/${idSegment(eventId)}${suffix}`;
