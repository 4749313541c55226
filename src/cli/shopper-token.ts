import { DEFAULT_OIDC_DEV_PORT } from "../config";
import { readToolConfig, runToolAsMain, ToolFailure, UsageError, type ToolDefinition } from "./tool";

const USAGE = `Usage: npm run shopper-token -- <customer id>

Prints an access token for the shopper with this customer id (one of the demo catalog's: user00 … user999,
customer-1 … customer-100000), from the development issuer that \`npm start\` serves on 127.0.0.1:OIDC_DEV_PORT
(${DEFAULT_OIDC_DEV_PORT} unless set) when OIDC_ISSUER is not set. For curl and tests:
  curl -H "Authorization: Bearer $(npm run -s shopper-token -- user900)" ...`;

export const shopperTokenTool: ToolDefinition = {
  usage: USAGE,
  async run(args, env, output) {
    if (args.length !== 1 || args[0]!.startsWith("-")) throw new UsageError("Name one customer id.");
    const config = readToolConfig(env);
    if (config.oidcIssuer !== undefined)
      throw new UsageError("OIDC_ISSUER is set: shoppers sign in at that issuer, which this command cannot ask for a token.");
    const issuer = `http://127.0.0.1:${config.oidcDevPort ?? DEFAULT_OIDC_DEV_PORT}`;
    const response = await fetch(`${issuer}/dev/shopper-token?customer=${encodeURIComponent(args[0]!)}`).catch((error: unknown) => {
      throw new ToolFailure(
        `No development issuer answers at ${issuer} (${(error as Error).message}): start the API with \`npm start\` first.`,
      );
    });
    const text = (await response.text()).trim();
    if (!response.ok) throw new UsageError(`The development issuer refused: ${text}`);
    output.out(text);
  },
};

if (require.main === module) runToolAsMain(shopperTokenTool);
