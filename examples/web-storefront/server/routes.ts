/** Where the signed-in shopper's operations go: the storefront's server side adds the shopper's token there. Shared by the page and the server. */
export const SHOPPER_GRAPHQL = "/shopper/graphql";
