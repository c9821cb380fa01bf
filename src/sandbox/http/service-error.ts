import { ERROR_TYPES, type ErrorStatus } from '../../contract/index.js';

/** A failure the service answers with the error shape: status, errorType from the contract, codes. */
export class ServiceError extends Error {
  readonly errorType: string;
  constructor(
    readonly status: ErrorStatus,
    readonly errorCodes: string[],
    readonly headers: Record<string, string> = {},
  ) {
    super(`${status} ${ERROR_TYPES[status]} ${errorCodes.join(',')}`);
    this.errorType = ERROR_TYPES[status];
  }
}

export const notFound = () => new ServiceError(404, ['EVENT_NOT_FOUND']);
export const invalid = (codes: string[]) => new ServiceError(422, codes);
