import type { Resolvers } from "../__generated__/resolvers-types";
import { Book } from "./Book";
import { BookConnection, BookEdge } from "./BookConnection";
import { Customer } from "./Customer";
import { CustomerConnection, CustomerEdge } from "./CustomerConnection";
import { Mutation } from "./Mutation";
import { Node } from "./Node";
import { Query } from "./Query";
import { NewBuyer, Subscription } from "./Subscription";

export const resolvers: Resolvers = {
  Query,
  Mutation,
  Subscription,
  Node,
  Book,
  BookConnection,
  BookEdge,
  Customer,
  CustomerConnection,
  CustomerEdge,
  NewBuyer,
};
