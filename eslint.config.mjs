// @ts-check
import eslint from "@eslint/js";
import prettier from "eslint-config-prettier";
import globals from "globals";
import { createNodeResolver, importX } from "eslint-plugin-import-x";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", "**/node_modules/", "dist/", "**/dist/", "coverage/", "**/__generated__/", "bench/results/"] },
  eslint.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      // tsc's noUnusedLocals and noUnusedParameters already refuse these.
      "@typescript-eslint/no-unused-vars": "off",
    },
  },
  {
    // No import cycles in the product: a module's dependencies read one way, from the GraphQL layer down
    // to the sales domain and the database layer, so each can be read (and tested) without the ones above it.
    files: ["src/**/*.ts"],
    plugins: { "import-x": importX },
    settings: {
      "import-x/extensions": [".ts", ".js"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts"] },
      "import-x/resolver-next": [createNodeResolver({ extensions: [".ts", ".js", ".json"] })],
    },
    rules: {
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
      // The database layer is handed what to keep in place (the domain's indexes); it never reaches up for it.
      "import-x/no-restricted-paths": [
        "error",
        {
          zones: [
            {
              target: "./src/db",
              from: ["./src/sales", "./src/graphql", "./src/cli", "./src/observability"],
              message: "src/db is the database layer: hand it what it needs instead of importing the layers above it.",
            },
            {
              target: "./src/sales",
              from: ["./src/graphql", "./src/cli", "./src/observability", "./src/maintenance"],
              message: "src/sales is what requests use; GraphQL, the tools, the metrics and maintenance call it, not the other way round.",
            },
            {
              target: "./src/graphql/resolvers",
              from: ["./src/db", "./src/sales/pool-share.ts"],
              message:
                "Resolvers reach data only through the request's services on the context (src/sales/request-services.ts), which hold its share of the pool.",
            },
            {
              target: "./src/graphql",
              from: ["./src/maintenance", "./src/cli"],
              message: "Requests never run maintenance (migration, reconcile, bulk loads): that is the tools' work.",
            },
          ],
        },
      ],
    },
  },
  {
    // The stand-in raises each error through its code's name (packages/offline-mongo/src/errors.ts: ErrorCode,
    // LocationCode), so that a reader sees which error it is and a search for the name finds every place.
    files: ["packages/offline-mongo/src/**/*.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "NewExpression[callee.name=/^(MongoCommandError|TransientTransactionError)$/] > Literal.arguments:first-child",
          message: "Name the error code: ErrorCode.<name> or LocationCode.<name> from errors.ts (add it there if it is new).",
        },
        {
          selector: "Property[key.name='code'] > Literal.value[raw=/^[0-9]/]",
          message: "Name the error code: ErrorCode.<name> or LocationCode.<name> from errors.ts (add it there if it is new).",
        },
      ],
    },
  },
  {
    // Resolvers never import the driver either: a resolver handed a Db could send commands outside the request's share of the pool.
    files: ["src/graphql/resolvers/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { paths: [{ name: "mongodb", message: "Resolvers reach data only through the request's services on the context." }] },
      ],
    },
  },
  {
    // The web storefront example runs in a browser.
    files: ["examples/web-storefront/src/**"],
    languageOptions: { globals: globals.browser },
  },
  {
    // jest's configuration and reporter are plain CommonJS files that jest loads with require().
    files: ["**/*.js"],
    languageOptions: { sourceType: "commonjs" },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  // Last, so that no stylistic rule fights the formatter.
  prettier,
);
