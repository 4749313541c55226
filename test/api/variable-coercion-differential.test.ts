import {
  getNamedType,
  getVariableValues,
  isLeafType,
  isNonNullType,
  parse,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLObjectType,
} from "graphql";
import { compileQuery, isCompiledQuery } from "graphql-jit";
import type { RunningServer } from "../../src/graphql/transport/server";
import { compiledSchema, schema } from "../../src/graphql/schema/schema";
import { coerceVariables } from "../../src/graphql/execution/variables";
import { openTestDatabase, type TestDatabase } from "../support/database";
import { postOperation, startTestHttpServer } from "../support/http";

// Every input type the schema's arguments take, against JSON values of every shape an attacker tries: whatever graphql-js
// refuses, the API refuses with its words, whatever it accepts, the API runs; and graphql-jit, handed what graphql-js
// coerced (as the API hands it), never refuses nor changes it. No engine runs what the checks did not see.

/** Values of every JSON shape, and the edge values of each scalar. */
const VALUES: readonly unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  2 ** 31,
  1e300,
  "9007199254740993",
  "",
  "1",
  "x".repeat(3),
  "TITLE",
  "ASC",
  [],
  [null],
  ["1"],
  [1, "2"],
  [[]],
  {},
  [{}],
  { $gt: "" },
  { author: "A" },
  { author: 1 },
  { yearFrom: 1990, yearTo: "2000" },
  { field: "TITLE", direction: "DESC" },
  { field: "title", direction: "DESC" },
  { bookId: "1", customerId: "c" },
  { bookId: "1", customerId: null },
  { title: "T", author: "A", year: 2001 },
  { title: "T", author: "A", extra: 1 },
  [{ __typename: "Book", id: "1" }],
  [{ __typename: "Customer", databaseId: "" }, "Book"],
];

/** One argument of a root field, as a variable of the argument's own type, in an operation that runs no resolver. */
interface Position {
  type: string;
  operation: string;
}

/** An argument that is neither the variable's nor optional gets a literal: only the variable is probed. */
function literalOf(argument: GraphQLArgument): string {
  const named = getNamedType(argument.type).name;
  const literal = named === "Int" ? "1" : named === "_Any" ? `{ __typename: "Book", id: "1" }` : `"1"`;
  return argument.type.toString().startsWith("[") ? `[${literal}]` : literal;
}

function positionsOf(root: GraphQLObjectType, keyword: "query" | "mutation"): Position[] {
  return Object.values(root.getFields()).flatMap((field: GraphQLField<unknown, unknown>) =>
    field.args.map((probed) => {
      const args = field.args
        .filter((argument) => argument === probed || isNonNullType(argument.type))
        .map((argument) => `${argument.name}: ${argument === probed ? "$v" : literalOf(argument)}`);
      const selection = isLeafType(getNamedType(field.type)) ? "" : " { __typename }";
      // Skipped: the variable is coerced, as every variable is, and nothing is read or written.
      return {
        type: probed.type.toString(),
        operation: `${keyword} ($v: ${probed.type}) { ${field.name}(${args.join(", ")}) @skip(if: true)${selection} }`,
      };
    }),
  );
}

const positions = [...positionsOf(schema.getQueryType()!, "query"), ...positionsOf(schema.getMutationType()!, "mutation")];
/** One operation per input type: the verdict depends on the variable's type alone. */
const byType = [...new Map(positions.map((position) => [position.type, position])).values()];
const pairs = byType.flatMap((position) => VALUES.map((value) => [position.type, JSON.stringify(value), position, value] as const));

let database: TestDatabase;
let server: RunningServer;
beforeAll(async () => {
  database = await openTestDatabase();
  server = await startTestHttpServer(database.db);
});
afterAll(async () => {
  await server.stop();
  await database.close();
});

it("probes every input type of the schema's root arguments", () => {
  expect(byType.map(({ type }) => type)).toEqual(
    expect.arrayContaining(["ID!", "Int", "BookFilter", "BookOrder", "[_Any!]!", "[ID!]!", "RecordPurchaseInput!", "AddBookInput!"]),
  );
});

it.each(pairs)("%s given %s: the API and graphql-jit agree with graphql-js", async (_type, _json, { operation }, value) => {
  const document = parse(operation);
  const definitions = document.definitions[0]!.kind === "OperationDefinition" ? document.definitions[0]!.variableDefinitions : [];
  const reference = getVariableValues(schema, definitions ?? [], { v: value });
  const answer = await postOperation(server.url, operation, { v: value });
  if (reference.errors) {
    expect(answer.status).toBe(400);
    expect(answer.json?.errors?.map(({ message, extensions }) => [message, extensions?.code])).toEqual([
      [reference.errors[0]!.message, "BAD_USER_INPUT"],
    ]);
    return;
  }
  // Run, not refused for the variable: at most the input check's refusal of what a skipped field would have been sent.
  const errors = answer.json?.errors ?? [];
  expect(errors.filter(({ message }) => message.startsWith('Variable "$v"'))).toEqual([]);
  expect(errors.map(({ extensions }) => extensions?.code).filter((code) => code !== "BAD_USER_INPUT")).toEqual([]);
  const coerced = coerceVariables(schema, document.definitions[0] as never, { v: value });
  expect(coerced).toEqual({ variables: reference.coerced });
  const compiled = compileQuery(compiledSchema, document);
  if (!isCompiledQuery(compiled)) throw new Error(`graphql-jit did not compile ${operation}`);
  expect(await compiled.query(undefined, {}, reference.coerced)).toEqual({ data: {} });
});
