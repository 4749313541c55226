import { commandShape, tracingRequested } from "../../src/observability/tracing";

describe("when traces are on", () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" }, true],
    [{ OTEL_TRACES_EXPORTER: "otlp" }, true],
    [{ OTEL_TRACES_EXPORTER: "console" }, true],
    [{ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }, false],
    [{ OTEL_SDK_DISABLED: "true", OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: " " }, false],
  ])("with %j: %s", (env, expected) => {
    expect(tracingRequested(env)).toBe(expected);
  });
});

describe("a database command as a span shows it", () => {
  it("keeps the command's field names and drops every value, so that no customer id leaves in a trace", () => {
    const command = {
      findAndModify: "sales",
      query: { _id: 7, "customers_purchased.49": { $exists: false } },
      update: { $push: { customers_purchased: "customer-42" }, $inc: { purchase_count: 1 } },
      documents: [{ customer_id: "customer-42" }],
    };
    expect(JSON.parse(commandShape(command))).toEqual({
      findAndModify: "?",
      query: { _id: "?", "customers_purchased.49": { $exists: "?" } },
      update: { $push: { customers_purchased: "?" }, $inc: { purchase_count: "?" } },
      documents: [{ customer_id: "?" }],
    });
  });
});
