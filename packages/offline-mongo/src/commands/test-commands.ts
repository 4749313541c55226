import { noSuchCommand, notSupported } from "../errors";
import type { FailPoints } from "./fail-points";
import { isNumeric, toNumber } from "../values/values";
import type { CommandContext, CommandDefinition } from "./context";
import { requireAdmin } from "./parameters";

/** The server's fail points, when test commands are enabled; otherwise the command does not exist, as on mongod. */
function failPointsFor(name: string, context: CommandContext): FailPoints {
  if (context.failPoints === undefined) throw noSuchCommand(name);
  requireAdmin(name, context);
  return context.failPoints;
}

const configureFailPoint: CommandDefinition = {
  names: ["configureFailPoint"],
  fields: ["mode", "data"],
  run: (body, context) => failPointsFor("configureFailPoint", context).configure(body),
};

/** Answered at once when the fail point was entered often enough already; waiting for it is not implemented. */
const waitForFailPoint: CommandDefinition = {
  names: ["waitForFailPoint"],
  fields: ["timesEntered"],
  run(body, context) {
    const failPoints = failPointsFor("waitForFailPoint", context);
    const times = body["timesEntered"];
    if (isNumeric(times) && failPoints.entered(String(body["waitForFailPoint"]), toNumber(times))) return { ok: 1 };
    throw notSupported("waiting for a fail point to be entered (waitForFailPoint before it was)");
  },
};

export const testCommands: readonly CommandDefinition[] = [configureFailPoint, waitForFailPoint];
