import type { Document } from "bson";
import { ErrorCode, MongoCommandError, notSupported } from "../errors";
import { isNumeric, isTruthy } from "../values/values";
import type { CommandContext, CommandDefinition, ServerParameters } from "./context";
import { isGenericField } from "./fields";

/** The server parameters this server implements; setting or reading any other is refused by name. */
const PARAMETERS: ReadonlyArray<keyof ServerParameters> = ["notablescan"];

export function requireAdmin(command: string, context: CommandContext): void {
  if (context.db !== "admin") throw new MongoCommandError(ErrorCode.Unauthorized, `${command} may only be run against the admin database.`);
}

function parameterName(name: string): keyof ServerParameters {
  const known = PARAMETERS.find((parameter) => parameter === name);
  if (known === undefined) throw notSupported(`the server parameter '${name}'`);
  return known;
}

/** `{setParameter: 1, notablescan: true}` on admin; answers the previous value as `was`, like mongod. */
const setParameter: CommandDefinition = {
  names: ["setParameter"],
  fields: "any",
  run(body, context) {
    requireAdmin("setParameter", context);
    const settings = Object.entries(body)
      .slice(1)
      .filter(([field]) => !isGenericField(field));
    if (settings.length === 0)
      throw new MongoCommandError(ErrorCode.InvalidOptions, "no option found to set, use help:true to see options ");
    const [[field, value] = ["", undefined], ...others] = settings;
    if (others.length > 0) throw notSupported("setting several server parameters in one command");
    const name = parameterName(field);
    if (typeof value !== "boolean" && !isNumeric(value)) {
      throw new MongoCommandError(ErrorCode.BadValue, `Invalid value for parameter ${name}: expected a boolean`);
    }
    const was = context.parameters[name];
    context.parameters[name] = isTruthy(value);
    return { was, ok: 1 };
  },
};

/** `{getParameter: 1, notablescan: 1}` or `{getParameter: "*"}` on admin. */
const getParameter: CommandDefinition = {
  names: ["getParameter"],
  fields: "any",
  run(body, context) {
    requireAdmin("getParameter", context);
    const names =
      body["getParameter"] === "*"
        ? PARAMETERS
        : Object.keys(body)
            .slice(1)
            .filter((field) => !isGenericField(field))
            .map(parameterName);
    if (names.length === 0) throw new MongoCommandError(ErrorCode.InvalidOptions, "no option found to get");
    const values: Document = {};
    for (const name of names) values[name] = context.parameters[name];
    return { ...values, ok: 1 };
  },
};

export const parameterCommands: readonly CommandDefinition[] = [setParameter, getParameter];
