/**
 * A frame that breaks the record format. The session closes the offending rank's connection with
 * `message` as the reason; other ranks and the session carry on.
 */
export class DecodeError extends Error {
  constructor(
    readonly rank: number,
    /** Index of the offending record in the frame, or -1 for the frame as a whole. */
    readonly record: number,
    readonly reason: string,
  ) {
    super(
      record >= 0 ? `rank ${rank}: bad record ${record}: ${reason}` : `rank ${rank}: bad frame: ${reason}`,
    );
    this.name = 'DecodeError';
  }
}
