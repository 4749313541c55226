import type { Document } from "bson";
import { LocationCode, MongoCommandError } from "../errors";
import { bsonTypeName, isDocument, isNumeric, toNumber } from "../values/values";

const LONG_LIMIT = 2 ** 63;

/**
 * mongod reads the counts of `$limit`, `$skip` and `$sample` with `safeNumberLong`: any number type,
 * truncated toward zero, NaN as 0, clamped to 64 bits. So `{$limit: 2.7}` limits to 2, and mingo,
 * which would otherwise take 2.7 as it is or a 0 as "no limit", is handed that integer.
 */
function safeNumberLong(value: unknown): number | undefined {
  if (!isNumeric(value)) return undefined;
  const n = toNumber(value);
  if (Number.isNaN(n)) return 0;
  return Math.max(-LONG_LIMIT, Math.min(LONG_LIMIT - 1, Math.trunc(n)));
}

function limitOf(value: unknown): number {
  const limit = safeNumberLong(value);
  if (limit === undefined) throw new MongoCommandError(LocationCode.LimitNotNumber, "the limit must be specified as a number");
  if (limit <= 0) throw new MongoCommandError(LocationCode.LimitNotPositive, "the limit must be positive");
  return limit;
}

function skipOf(value: unknown): number {
  const skip = safeNumberLong(value);
  if (skip === undefined)
    throw new MongoCommandError(LocationCode.SkipNotNumber, `Argument to $skip must be a number not a ${bsonTypeName(value)}`);
  if (skip < 0) throw new MongoCommandError(LocationCode.SkipNegative, "Argument to $skip cannot be negative");
  return skip;
}

function sampleOf(spec: unknown): Document {
  if (!isDocument(spec)) throw new MongoCommandError(LocationCode.SampleNotDocument, "the $sample stage specification must be an object");
  const unknown = Object.keys(spec).find((field) => field !== "size");
  if (unknown !== undefined) throw new MongoCommandError(LocationCode.SampleUnknownOption, `unrecognized option to $sample: ${unknown}`);
  if (!("size" in spec)) throw new MongoCommandError(LocationCode.SampleWithoutSize, "$sample stage must specify a size");
  const size = safeNumberLong(spec["size"]);
  if (size === undefined) throw new MongoCommandError(LocationCode.SampleSizeNotNumber, "size argument to $sample must be a number");
  if (size < 0) throw new MongoCommandError(LocationCode.SampleSizeNegative, "size argument to $sample must not be negative");
  return { size };
}

const COUNTED_STAGES: Readonly<Record<string, (argument: unknown) => unknown>> = { $limit: limitOf, $skip: skipOf, $sample: sampleOf };

/** The pipeline with each count checked and read as mongod reads it; a stage mongod refuses is refused with its code. */
export function readCountArguments(pipeline: readonly Document[]): Document[] {
  return pipeline.map((stage) => {
    const [name, ...others] = Object.keys(stage);
    const read = name === undefined || others.length > 0 ? undefined : COUNTED_STAGES[name];
    return read ? { [name as string]: read(stage[name as string]) } : stage;
  });
}
