import type { Resolvers } from "../__generated__/resolvers-types";
import { Book } from "./Book";
import { BookConnection, BookEdge } from "./BookConnection";
import { CustomerConnection, CustomerEdge } from "./CustomerConnection";
import { Mutation } from "./Mutation";
import { Query } from "./Query";

export const resolvers: Resolvers = { Query, Mutation, Book, BookConnection, BookEdge, CustomerConnection, CustomerEdge };
