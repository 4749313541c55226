import { buildSchema, parse, type OperationDefinitionNode } from "graphql";
import { memoizeByOperation, type OperationRequest } from "../../src/graphql/execution/operation-memo";

// Issue 35's `_entities` and windows attackers send the same hundreds of representations again and again: the
// memo must know them, however long their variables, so that each repeat is not coerced, weighed and refused anew.

const schema = buildSchema(`scalar _Any type Query { _entities(representations: [_Any!]!): [String] }`);
const document = parse(`query Entities($r: [_Any!]!) { _entities(representations: $r) }`);
const operation = document.definitions[0] as OperationDefinitionNode;

const representations = (count: number, from = 0) =>
  Array.from({ length: count }, (_, index) => ({ __typename: "Book", databaseId: String(from + index).padStart(24, "0") }));
const requestWith = (r: unknown[]): OperationRequest => ({ schema, document, queryHash: "entities", request: { variables: { r } } });

describe("memoizeByOperation", () => {
  it("analyses an operation once for repeated variables far longer than a key is held, and again for other values", () => {
    const analysed: number[] = [];
    const analyse = memoizeByOperation((request) => {
      analysed.push((request.request.variables!["r"] as unknown[]).length);
      return analysed.length;
    });
    const thousand = representations(1_000);
    expect(JSON.stringify(thousand).length).toBeGreaterThan(50_000);

    const first = analyse(requestWith(thousand), operation);
    const repeated = analyse(requestWith(representations(1_000)), operation);
    const other = analyse(requestWith(representations(1_000, 1)), operation);

    expect({ first, repeated, other, analysed }).toEqual({ first: 1, repeated: 1, other: 2, analysed: [1_000, 1_000] });
  });
});
