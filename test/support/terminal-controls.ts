/* eslint-disable no-control-regex -- finding and stripping terminal controls is the point */

/*
 * What a terminal acts on, for tests that check none of it reached one (from a hostile service,
 * through an error or a table) and for tests that read a screen as text.
 */

/** Anything that could act on a terminal: ESC, C1 controls, bidi overrides and isolates, CR. */
export const TERMINAL_CONTROLS = /[\u001b\u0080-\u009f\u202a-\u202e\u2066-\u2069\r]/;

/** The escape sequences (CSI: colours, cursor moves, modes) a terminal's screen dump holds. */
export const ESCAPE_SEQUENCES = /\u001b\[[0-9;?]*[a-zA-Z]/g;

/** `text` without its escape sequences. */
export const withoutEscapes = (text: string) => text.replace(ESCAPE_SEQUENCES, '');
