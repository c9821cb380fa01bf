import { Type, type Static } from '@sinclair/typebox';
import { MAX_COMMENT_LENGTH } from './limits.js';

/** Body of PATCH /event/{eventId}/state: at least one of state and comments (contract.md). */
export const StateChangeSchema = Type.Object(
  {
    state: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    comments: Type.Optional(Type.String({ maxLength: MAX_COMMENT_LENGTH })),
  },
  { $id: 'StateChange', additionalProperties: false, minProperties: 1 },
);
export type StateChange = Static<typeof StateChangeSchema>;
