import { ClientError } from "../errors";
import type { Scope } from "./scopes";

/**
 * A field refused to the caller. The message says what the field needs and nothing about which
 * tokens exist, so it is safe to show.
 */
export abstract class AccessError extends ClientError {}

export class UnauthenticatedError extends AccessError {
  override readonly name = "UnauthenticatedError";
  readonly code = "UNAUTHENTICATED";
  constructor(scope: Scope) {
    super(`This field needs a bearer token with the scope "${scope}": send "Authorization: Bearer <token>" with a valid token.`);
  }
}

export class ForbiddenError extends AccessError {
  override readonly name = "ForbiddenError";
  readonly code = "FORBIDDEN";
  constructor(scope: Scope) {
    super(`This field needs the scope "${scope}", which the token sent does not have.`);
  }
}

export class NotYoursError extends AccessError {
  override readonly name = "NotYoursError";
  readonly code = "FORBIDDEN";
  constructor(scope: Scope) {
    super(
      `A shopper's token reaches only the shopper's own customer data (through \`viewer\`); another customer's needs a token with the scope "${scope}".`,
    );
  }
}
