/* Resource paths of the interface, shared by the client and the sandbox. No imports: the client loads it at start-up. */

/** "." and ".." are valid ids but dot segments to URL handling, even as %2E: written as %2E and never resolved. */
const idSegment = (eventId: string) => (eventId === '.' || eventId === '..' ? eventId.replaceAll('.', '%2E') : encodeURIComponent(eventId));

/** `/event/{eventId}` plus an optional suffix such as `/state`, with the id path-encoded. */
export const eventPath = (eventId: string, suffix = '') => `/event/${idSegment(eventId)}${suffix}`;
