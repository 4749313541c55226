import type { ErrorCode } from "./error-codes";

/**
 * A failure the client caused and can correct. Its message is safe to show, and `code` is the stable
 * `extensions.code` clients branch on; the domain's and access errors extend it, so the error
 * formatter needs to know only this class.
 */
export abstract class ClientError extends Error {
  abstract readonly code: ErrorCode;

  /** Fields beside `code` in `extensions`, for errors that say more (e.g. which argument is at fault). */
  extensions(): Record<string, unknown> {
    return {};
  }
}

/** A start-up step that cannot succeed by waiting: its message names the cause and what the operator should do. */
export class StartupError extends Error {
  override readonly name = "StartupError";

  constructor(cause: string, fix: string, options?: ErrorOptions) {
    super(`${cause}: ${fix}.`, options);
  }
}
