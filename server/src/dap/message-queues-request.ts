/**
 * The DAP custom request 'mpiscope.messageQueues' of the mpi debug adapter and its answer; the extension's
 * queue view (extension/src/queue-view.ts) sends it and draws the answer. The answer is the session's
 * MessageQueueView (session-api.ts) with whether the job is stopped and how many ranks it has.
 */
import type { MessageQueueView } from '../session/session-api';

export const MESSAGE_QUEUES_REQUEST = 'mpiscope.messageQueues';

export interface MessageQueuesResponse extends MessageQueueView {
  /** The job is stopped (the queues stand still); otherwise they are a snapshot of a moving job. */
  readonly paused: boolean;
  readonly ranks: number;
}
