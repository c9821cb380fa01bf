import { UsageError } from '../errors/cli-error.js';
import type { Session } from '../session.js';

export interface WatchOptions {
  intervalSeconds: number;
  until: string | null;
}

/** `show ID --watch`: comes in the next change. */
export function watchEvent(_session: Session, _eventId: string, _options: WatchOptions): Promise<void> {
  return Promise.reject(new UsageError('--watch is not available yet'));
}
