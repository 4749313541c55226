import { isObjectType } from "graphql";
import { DEFAULT_WINDOW_SIZE } from "../../src/graphql/schema/windows";
import { COMMAND_COST, readFieldCosts, type Coordinate } from "../../src/graphql/limits/field-costs";
import { schema } from "../../src/graphql/schema/schema";

/**
 * The schema's `@listSize` against its fields' arguments: the weighing multiplies a field's selection only by what its
 * `@listSize` names, so a list argument the directive leaves out would be weighed as one item, whatever its value.
 */
const costs = readFieldCosts(schema);
const SIZE_ARGUMENTS = ["first", "last", "top"];

const fields = Object.values(schema.getTypeMap())
  .filter(isObjectType)
  .filter((type) => !type.name.startsWith("__"))
  .flatMap((type) => Object.values(type.getFields()).map((field) => ({ coordinate: `${type.name}.${field.name}` as Coordinate, field })));

describe("the schema's @listSize", () => {
  it("names as slicing arguments every argument that says how many items a field returns", () => {
    const sized = fields
      .filter(({ field }) => field.args.some((argument) => SIZE_ARGUMENTS.includes(argument.name)))
      .map(({ coordinate, field }) => [
        coordinate,
        field.args.map((argument) => argument.name).filter((name) => SIZE_ARGUMENTS.includes(name)),
      ]);

    expect(sized.length).toBeGreaterThan(0);
    expect(sized).toEqual(sized.map(([coordinate]) => [coordinate, costs.get(coordinate as Coordinate)?.listSize?.slicingArguments]));
  });

  it(`assumes a list left without its size at least the default window, ${DEFAULT_WINDOW_SIZE}, as the resolvers read one`, () => {
    const assumed = [...costs].filter(([, cost]) => cost.listSize).map(([coordinate, cost]) => [coordinate, cost.listSize?.assumedSize]);

    expect(assumed).toEqual(assumed.map(([coordinate, size]) => [coordinate, Math.max(Number(size), DEFAULT_WINDOW_SIZE)]));
  });
});

describe("the schema's @cost", () => {
  it(`weighs whole database commands, ${COMMAND_COST} each`, () => {
    const weights = [...costs].map(([coordinate, cost]) => [coordinate, cost.weight]);

    expect(weights).toEqual(weights.map(([coordinate, weight]) => [coordinate, Math.round(Number(weight) / COMMAND_COST) * COMMAND_COST]));
  });
});
