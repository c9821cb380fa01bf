import { Type, type Static } from '@sinclair/typebox';
import { NullableArray, NullableString } from './nullable.js';

/** Error response (service-interface 2.3). Every non-2xx body is this and nothing else. */
export const ErrorResponseSchema = Type.Object(
  {
    requestId: NullableString(),
    errorType: NullableString(),
    errorCodes: NullableArray(Type.String()),
  },
  { $id: 'ErrorResponse', additionalProperties: false },
);
export type ErrorResponse = Static<typeof ErrorResponseSchema>;

/** errorType values the sandbox uses (contract.md, Errors). A real service may send others. */
export const ERROR_TYPES = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  408: 'REQUEST_TIMEOUT',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  431: 'REQUEST_HEADER_FIELDS_TOO_LARGE',
  422: 'VALIDATION_ERROR',
  429: 'RATE_LIMITED',
  500: 'INTERNAL_ERROR',
  503: 'SERVICE_UNAVAILABLE',
  504: 'GATEWAY_TIMEOUT',
} as const;
export type ErrorStatus = keyof typeof ERROR_TYPES;
