import type { NewBuyerResolvers, SubscriptionResolvers } from "../__generated__/resolvers-types";
import type { BookWithoutBuyers } from "../../sales/documents";
import type { LiveEvent, NewBuyerEvent } from "../live/live-sales";
import { bookIdFromEither } from "../schema/global-ids";

// Each event is what the server's live sales hand on; `resolve` gives the field its value from it.
export const Subscription: SubscriptionResolvers = {
  bookSales: {
    subscribe: (_parent, { ids }, { live }) => live.bookSales(ids.map((id) => bookIdFromEither(id, "ids"))),
    resolve: (event: LiveEvent<BookWithoutBuyers>) => event.value,
  },
  bestsellers: {
    subscribe: (_parent, { top }, { live }) => live.bestsellerList(top),
    resolve: (event: LiveEvent<BookWithoutBuyers[]>) => event.value,
  },
  newBuyers: {
    subscribe: (_parent, { bookId }, { live }) => live.newBuyers(bookIdFromEither(bookId, "bookId")),
    resolve: (event: NewBuyerEvent) => event,
  },
};

export const NewBuyer: NewBuyerResolvers = {
  edge: ({ buyer }) => buyer,
};
