import type { GraphQLResolveInfo } from 'graphql';
import type { BookModel, BookConnectionModel, BookEdgeModel, CustomerModel, CustomerConnectionModel } from '../schema/models';
import type { Buyer } from '../../sales/book-buyers';
import type { NewBuyerEvent as NewBuyerModel } from '../live/live-sales';
import type { Recommendation as RecommendationModel } from '../../sales/recommendations';
import type { PurchaseOutcome } from '../../sales/purchases';
import type { SalesStats as SalesStatsModel } from '../../sales/stats';
import type { GraphQLContext } from '../execution/context';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
export type RequireFields<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: NonNullable<T[P]> };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  _FieldSet: { input: unknown; output: unknown; }
};

/** The fields of a new book. */
export type AddBookInput = {
  /** The author: 1 to 200 characters. */
  author: Scalars['String']['input'];
  /**
   * The id to give the book: a decimal integer, a 24-character hex ObjectId, or another string
   * of 1 to 128 characters. Leave it out to have an ObjectId made.
   */
  id?: InputMaybe<Scalars['ID']['input']>;
  /** The title: 1 to 500 characters. */
  title: Scalars['String']['input'];
  /** The year of publication. */
  year?: InputMaybe<Scalars['Int']['input']>;
};

/** A book in the catalog with its sales. */
export type Book = Node & {
  __typename?: 'Book';
  /**
   * Books most often bought by this book's buyers, most shared buyers first, ties in book id order; never
   * this book itself. Counted over a sample of at most 50 buyers, the book's earliest: exact for a book with
   * at most 50 distinct buyers, an estimate from its first buyers for an outlier. One aggregation, however
   * popular the book. Needs the `purchases:read` scope.
   */
  alsoBought: Array<Recommendation>;
  /** The book's author. */
  author: Scalars['String']['output'];
  /**
   * The book's buyers (the customers who bought it), in purchase order, a window at a time: forward with `first`/`after`,
   * newest first with `last` (and `before` to go further back). With neither `first` nor `last`, the first 20.
   * A customer who bought the book twice appears twice. Needs the `purchases:read` scope.
   */
  customersPurchased: CustomerConnection;
  /** The book's id as stored: a decimal integer, a 24-character hex ObjectId, or any other string. `book(id:)` takes it too. */
  databaseId: Scalars['ID']['output'];
  /**
   * The book's global id, the same as `id`.
   * @deprecated Use `id`, which is now the global id; the stored id is `databaseId`.
   */
  globalId: Scalars['ID']['output'];
  /**
   * True when the book is an outlier: its buyers past the threshold are its extra sales, stored in
   * the `extra_sales` collection.
   */
  hasExtras: Scalars['Boolean']['output'];
  /** The book's global id (Relay): opaque, unique across types. `book(id:)` and `node` take it. */
  id: Scalars['ID']['output'];
  /** How many purchases the book has had, read from the stored count. */
  purchaseCount: Scalars['Int']['output'];
  /**
   * True when this customer bought the book. At most two indexed queries for all the books of a request,
   * however many purchases they have. Needs the `purchases:read` scope.
   */
  purchasedBy: Scalars['Boolean']['output'];
  /** The book's title. */
  title: Scalars['String']['output'];
  /** The year the book was published, when known. */
  year?: Maybe<Scalars['Int']['output']>;
};


/** A book in the catalog with its sales. */
export type BookAlsoBoughtArgs = {
  first?: InputMaybe<Scalars['Int']['input']>;
};


/** A book in the catalog with its sales. */
export type BookCustomersPurchasedArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
};


/** A book in the catalog with its sales. */
export type BookPurchasedByArgs = {
  customerId: Scalars['ID']['input'];
};

/** A window of books. */
export type BookConnection = {
  __typename?: 'BookConnection';
  /** The books in this window, in the list's order. */
  edges: Array<BookEdge>;
  /** Where this window lies in the whole list. */
  pageInfo: PageInfo;
  /**
   * How many books the list holds in all. For `Query.books` without `filter` or `search`, the catalog,
   * from the database's own count of the collection, read in constant time: exact in normal operation,
   * possibly off after an unclean shutdown of MongoDB and, on a sharded cluster, while chunk migrations
   * leave orphaned copies. With a `filter` or `search`, counted from the index that answers it, up to
   * 1,000: exact below 1,000, and 1,000 means "1,000 or more". For `Customer.booksPurchased`,
   * the customer's distinct books, counted when asked for.
   */
  totalCount: Scalars['Int']['output'];
};

/** One book in a window of books. */
export type BookEdge = {
  __typename?: 'BookEdge';
  /** Opaque position of this book, to pass as `after` for the next window or `before` for the previous one. */
  cursor: Scalars['String']['output'];
  /** The book. */
  node: Book;
};

/** Narrows `Query.books` to the books that match every field given. */
export type BookFilter = {
  /** Only this author's books, the name exactly as stored (1 to 200 characters). */
  author?: InputMaybe<Scalars['String']['input']>;
  /** Only books published in this year or later; books without a year are left out. */
  yearFrom?: InputMaybe<Scalars['Int']['input']>;
  /** Only books published in this year or earlier; books without a year are left out. Not before `yearFrom`. */
  yearTo?: InputMaybe<Scalars['Int']['input']>;
};

/** An order of `Query.books`, as GitHub's API takes one. */
export type BookOrder = {
  /** Which way. */
  direction: OrderDirection;
  /** What the books are ordered by. */
  field: BookOrderField;
};

/**
 * What `Query.books` can be ordered by. Ties are broken by id, and each direction is the exact reverse of
 * the other: ID, TITLE and YEAR ascending take tied books in ascending id order; PURCHASE_COUNT DESC (the
 * bestsellers, as `salesStats.largestBooks`) takes them in ascending id order too, so PURCHASE_COUNT ASC
 * takes them in descending id order.
 */
export type BookOrderField =
  /** The book's id: integers, then strings, then ObjectIds. */
  | 'ID'
  /** How many purchases the book has had (`purchaseCount`): DESC lists the bestsellers first. */
  | 'PURCHASE_COUNT'
  /** The title, compared as MongoDB compares strings by default (by their UTF-8 bytes: "Z" before "a"). */
  | 'TITLE'
  /**
   * The year of publication. Books without one sort as MongoDB sorts missing values: before every year
   * ascending, after every year descending.
   */
  | 'YEAR';

/** Who may keep a cached answer: any cache (a CDN, a browser, this API's response cache), or only the caller's own. */
export type CacheControlScope =
  /**
   * The answer is for the caller who asked: only its own browser may keep it, and this API's response
   * cache keeps it for that bearer token alone.
   */
  | 'PRIVATE'
  /** The answer is the same for every caller: any cache may keep it. */
  | 'PUBLIC';

/**
 * A customer of the bookstore, known here only by id. Private wherever it is returned: who bought what
 * is never cached beyond the caller who asked.
 */
export type Customer = Node & {
  __typename?: 'Customer';
  /**
   * The books this customer bought, each once however often it was bought, in book id order (the order of
   * `Query.books`), a window at a time. Cursors are book ids, so they stay valid while purchases arrive; a
   * book bought after a window was read appears in a later window when its id sorts after that window.
   * Only for the shopper whose customer this is (reached through `viewer`, or `customer(id:)` with their own
   * id), or a token with the `purchases:read` scope.
   */
  booksPurchased: BookConnection;
  /** The customer's id as given to `recordPurchase`. */
  databaseId: Scalars['ID']['output'];
  /**
   * The customer's global id, the same as `id`.
   * @deprecated Use `id`, which is now the global id; the stored id is `databaseId`.
   */
  globalId: Scalars['ID']['output'];
  /** The customer's global id (Relay): opaque, unique across types. `customer(id:)` and `node` take it. */
  id: Scalars['ID']['output'];
};


/**
 * A customer of the bookstore, known here only by id. Private wherever it is returned: who bought what
 * is never cached beyond the caller who asked.
 */
export type CustomerBooksPurchasedArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};

/** A window of a book's buyers. */
export type CustomerConnection = {
  __typename?: 'CustomerConnection';
  /** The purchases in this window, in purchase order. */
  edges: Array<CustomerEdge>;
  /** Where this window lies in the whole list. */
  pageInfo: PageInfo;
  /** How many purchases the book has in all, whatever the window. */
  totalCount: Scalars['Int']['output'];
};

/** One purchase in a book's list of buyers. */
export type CustomerEdge = {
  __typename?: 'CustomerEdge';
  /** Opaque position of this purchase, to pass as `after` for the next window or `before` for the previous one. */
  cursor: Scalars['String']['output'];
  /** The customer who made the purchase. */
  node: Customer;
};

/** Entry points for changing the catalog. Their answers are never cached. */
export type Mutation = {
  __typename?: 'Mutation';
  /** Adds a book with no purchases. Fails with ALREADY_EXISTS when the id is taken. */
  addBook: Book;
  /**
   * Records that a customer bought a book, appending the customer to the book's buyers.
   * Safe under any number of concurrent calls: each call is recorded exactly once.
   * With a `purchaseId`, retries of the same purchase (even concurrent ones) record nothing new and
   * answer the first call's outcome. Fails with PURCHASE_ID_CONFLICT when the purchaseId already names
   * this book's purchase by another customer, and with PURCHASE_IN_PROGRESS (retry with the same
   * purchaseId) when an earlier call with it has not finished within a few seconds.
   * Needs a token with the `catalog:write` scope, or a shopper's token for the shopper's own purchase.
   */
  recordPurchase: RecordPurchasePayload;
};


/** Entry points for changing the catalog. Their answers are never cached. */
export type MutationAddBookArgs = {
  input: AddBookInput;
};


/** Entry points for changing the catalog. Their answers are never cached. */
export type MutationRecordPurchaseArgs = {
  input: RecordPurchaseInput;
};

/** A new purchase of a book, as `Subscription.newBuyers` delivers it. */
export type NewBuyer = {
  __typename?: 'NewBuyer';
  /** The purchase, as an edge of the book's `customersPurchased`: its cursor continues that list. */
  edge: CustomerEdge;
  /**
   * How many purchases of the book, just before this one, were not delivered (the subscriber fell behind, or
   * the server lost track of the book's changes); 0 otherwise. Read them with
   * `customersPurchased(after:, first:)` from the cursor of the last buyer received.
   */
  missedBefore: Scalars['Int']['output'];
  /** The book's `purchaseCount` once this purchase was counted. */
  purchaseCount: Scalars['Int']['output'];
};

/**
 * An object that can be fetched again by its `id` with `Query.node` (Relay's Global Object
 * Identification, as GitHub's and Shopify's APIs follow it). `id` is opaque and unique across types; the
 * id the database stores is `databaseId`. Every argument that names a book or a customer (`book(id:)`,
 * `customer(id:)`, `recordPurchase`'s `bookId` and `customerId`, `purchasedBy`) takes either.
 */
export type Node = {
  /** Opaque and unique across all types: Relay keys its store by it, and `Query.node` fetches the object again. */
  id: Scalars['ID']['output'];
};

/** Which way an order runs. */
export type OrderDirection =
  /** Smallest first. */
  | 'ASC'
  /** Largest first. */
  | 'DESC';

/** The distribution of `extra_sales` pages over the books that have any; every figure is 0 when none has. */
export type OverflowPagesDistribution = {
  __typename?: 'OverflowPagesDistribution';
  /** The most pages any book has. */
  max: Scalars['Int']['output'];
  /** The median number of pages (50th percentile, nearest rank). */
  median: Scalars['Int']['output'];
  /** The 99th percentile of pages (nearest rank). */
  p99: Scalars['Int']['output'];
};

/** Relay's page information: where a connection's window lies, walked forward with `first` and `after` or backward with `last` and `before`. */
export type PageInfo = {
  __typename?: 'PageInfo';
  /** The cursor of the last item in this window, or null when the window is empty. */
  endCursor?: Maybe<Scalars['String']['output']>;
  /** True when more items follow this window: whenever `before` was given, otherwise when the list goes on past it. */
  hasNextPage: Scalars['Boolean']['output'];
  /** True when items precede this window: whenever `after` was given, otherwise when the list has items before it. */
  hasPreviousPage: Scalars['Boolean']['output'];
  /** The cursor of the first item in this window, or null when the window is empty. */
  startCursor?: Maybe<Scalars['String']['output']>;
};

/** Where a purchase was stored. */
export type PurchaseStorage =
  /** Among the book's embedded buyers, in its own `customers_purchased`. */
  | 'EMBEDDED'
  /** In an `extra_sales` page, as one of the book's extra sales: the book already embeds as many buyers as the threshold. */
  | 'EXTRA_SALES';

/** Entry points for reading the catalog. */
export type Query = {
  __typename?: 'Query';
  /** One book by its id, or null when no book has that id. */
  book?: Maybe<Book>;
  /**
   * The catalog, a window at a time, in `orderBy`'s order (by default by id: integers, then strings, then
   * ObjectIds), narrowed by `filter` and `search`: forward with `first`/`after`, backward (the end of the
   * list first) with `last`/`before`. With neither `first` nor `last`, the first 20.
   * Cursors are keyset cursors (the book's order key and id): they stay valid while books are added and
   * bought, and only within the same `orderBy`, `filter` and `search` (another gives BAD_USER_INPUT).
   * Every window is read from indexes, examining about as many books as it shows, however large the catalog:
   * one query, or up to five where the window crosses from the cursor's tie group into the next keys.
   * Under concurrent purchases, a walk by PURCHASE_COUNT DESC never shows a book twice (counts only grow,
   * so a book already shown stays behind the cursor), but a book that overtakes the cursor during the
   * walk is not shown; any book whose count did not change during the walk is shown exactly once.
   */
  books: BookConnection;
  /**
   * A customer, known here only by id. Every id names a customer: one who bought nothing has an empty
   * `booksPurchased`, so this answers without reading the database and reveals nothing by itself.
   */
  customer?: Maybe<Customer>;
  /** Any object by its global id (Relay's Global Object Identification), or null when it does not exist. */
  node?: Maybe<Node>;
  /**
   * Several objects by their global ids, in the order given, each null when it does not exist: at most 100.
   * All the books among them are read with one query.
   */
  nodes: Array<Maybe<Node>>;
  /**
   * How the catalog's outliers stand: counts, `extra_sales` pages per outlier, the largest books, and
   * the settings in force. `npm run report` prints the same figures.
   */
  salesStats: SalesStats;
  /**
   * The signed-in shopper's own customer: the caller whose bearer token is an access token from the API's OpenID
   * Connect issuer. Null for any other caller (a service token, or none).
   */
  viewer?: Maybe<Customer>;
};


/** Entry points for reading the catalog. */
export type QueryBookArgs = {
  id: Scalars['ID']['input'];
};


/** Entry points for reading the catalog. */
export type QueryBooksArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<BookFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
  orderBy?: InputMaybe<BookOrder>;
  search?: InputMaybe<Scalars['String']['input']>;
};


/** Entry points for reading the catalog. */
export type QueryCustomerArgs = {
  id: Scalars['ID']['input'];
};


/** Entry points for reading the catalog. */
export type QueryNodeArgs = {
  id: Scalars['ID']['input'];
};


/** Entry points for reading the catalog. */
export type QueryNodesArgs = {
  ids: Array<Scalars['ID']['input']>;
};


/** Entry points for reading the catalog. */
export type QuerySalesStatsArgs = {
  top?: InputMaybe<Scalars['Int']['input']>;
};

/** A book recommended beside another, with how many of the other book's sampled buyers bought it. */
export type Recommendation = {
  __typename?: 'Recommendation';
  /** The recommended book. */
  book: Book;
  /** How many of the sampled buyers of the book asked about also bought this one. */
  sharedBuyers: Scalars['Int']['output'];
};

/** A purchase to record. */
export type RecordPurchaseInput = {
  /** The book bought: its `id` or its `databaseId`. */
  bookId: Scalars['ID']['input'];
  /**
   * The customer who bought it: its `id`, or its `databaseId` (1 to 128 characters; a new customer has only this).
   * Leave it out when a shopper's token is sent: the purchase is then the shopper's. A shopper may name only
   * themselves (FORBIDDEN otherwise); a service token with `catalog:write` must name the customer (BAD_USER_INPUT).
   */
  customerId?: InputMaybe<Scalars['ID']['input']>;
  /**
   * The client's own id for this purchase (an order line id, 1 to 128 characters), unique per book.
   * Send the same purchaseId when retrying: the purchase is then recorded once, and every retry
   * answers where it was stored. Remembered for PURCHASE_ID_LIFETIME_HOURS (24 by default); after
   * that the same purchaseId records a new purchase. Without it, every call records a purchase.
   */
  purchaseId?: InputMaybe<Scalars['ID']['input']>;
};

/** The result of recording a purchase. */
export type RecordPurchasePayload = {
  __typename?: 'RecordPurchasePayload';
  /**
   * The book, including the purchase just recorded: `purchaseCount` as the write left it. Its
   * `customersPurchased` is read when selected, with one query more, so it may also show purchases
   * recorded since.
   */
  book: Book;
  /**
   * True when an earlier call with the same `purchaseId` recorded this purchase and this call only
   * reports it; `book` is then the book as it stands now.
   */
  replayed: Scalars['Boolean']['output'];
  /** Where the purchase was stored. */
  storedIn: PurchaseStorage;
};

/** Figures about the outlier pattern in the catalog, read from the database when asked. */
export type SalesStats = {
  __typename?: 'SalesStats';
  /** How many books the catalog holds. */
  books: Scalars['Int']['output'];
  /** How many `extra_sales` pages exist across all books. */
  extraSalesDocuments: Scalars['Int']['output'];
  /** Purchases per `extra_sales` page for books created from now on, as configured for this server. */
  extraSalesPageSize: Scalars['Int']['output'];
  /** The books with the most purchases, largest first, ties in id order. */
  largestBooks: Array<Book>;
  /** How many buyers a book embeds before it becomes an outlier (the threshold), as configured for this server. */
  outlierThreshold: Scalars['Int']['output'];
  /** How many books are outliers (flagged `has_extras`). */
  outliers: Scalars['Int']['output'];
  /** How many `extra_sales` pages each outlier has. */
  overflowPagesPerOutlier: OverflowPagesDistribution;
};

/**
 * Live sales, over a WebSocket at the same `/graphql` URL (the `graphql-transport-ws` protocol that Apollo
 * Client's `GraphQLWsLink` and urql's `subscriptionExchange` speak). Each subscription first sends the value as
 * it stands, then each change. Needs MongoDB as a replica set (REPLICA_SET_REQUIRED otherwise).
 */
export type Subscription = {
  __typename?: 'Subscription';
  /**
   * The `top` books with the most purchases, largest first, ties in id order (as `salesStats.largestBooks`):
   * sent as it stands, then again whenever a purchase changes it. Read from the index of purchase counts,
   * only after a purchase of a book that is on the list or has reached its last place. Conflated: a slow
   * subscriber gets the latest list.
   */
  bestsellers: Array<Book>;
  /**
   * The books named, each sent as it stands when the subscription starts and again whenever its
   * `purchaseCount` or `hasExtras` changes. Conflated: a subscriber that reads slower than purchases arrive
   * gets each book's latest figures, not every step between. Its `id` lets a client's cache (Apollo Client's,
   * urql's graphcache) update the same book wherever it is shown. At most 100 ids; NOT_FOUND when one names no book.
   */
  bookSales: Book;
  /**
   * Each new buyer of a book, from the subscription's start on, once each and in purchase order. A subscriber
   * that falls far behind is told how many it missed (`missedBefore`) and reads them with
   * `Book.customersPurchased`. Needs the `purchases:read` scope.
   */
  newBuyers: NewBuyer;
};


/**
 * Live sales, over a WebSocket at the same `/graphql` URL (the `graphql-transport-ws` protocol that Apollo
 * Client's `GraphQLWsLink` and urql's `subscriptionExchange` speak). Each subscription first sends the value as
 * it stands, then each change. Needs MongoDB as a replica set (REPLICA_SET_REQUIRED otherwise).
 */
export type SubscriptionBestsellersArgs = {
  top?: InputMaybe<Scalars['Int']['input']>;
};


/**
 * Live sales, over a WebSocket at the same `/graphql` URL (the `graphql-transport-ws` protocol that Apollo
 * Client's `GraphQLWsLink` and urql's `subscriptionExchange` speak). Each subscription first sends the value as
 * it stands, then each change. Needs MongoDB as a replica set (REPLICA_SET_REQUIRED otherwise).
 */
export type SubscriptionBookSalesArgs = {
  ids: Array<Scalars['ID']['input']>;
};


/**
 * Live sales, over a WebSocket at the same `/graphql` URL (the `graphql-transport-ws` protocol that Apollo
 * Client's `GraphQLWsLink` and urql's `subscriptionExchange` speak). Each subscription first sends the value as
 * it stands, then each change. Needs MongoDB as a replica set (REPLICA_SET_REQUIRED otherwise).
 */
export type SubscriptionNewBuyersArgs = {
  bookId: Scalars['ID']['input'];
};



export type ResolverTypeWrapper<T> = Promise<T> | T;

export type ReferenceResolver<TResult, TReference, TContext> = (
      reference: TReference,
      context: TContext,
      info: GraphQLResolveInfo
    ) => Promise<TResult> | TResult;

      type ScalarCheck<T, S> = S extends true ? T : NullableCheck<T, S>;
      type NullableCheck<T, S> = Maybe<T> extends T ? Maybe<ListCheck<NonNullable<T>, S>> : ListCheck<T, S>;
      type ListCheck<T, S> = T extends (infer U)[] ? NullableCheck<U, S>[] : GraphQLRecursivePick<T, S>;
      export type GraphQLRecursivePick<T, S> = { [K in keyof T & keyof S]: ScalarCheck<T[K], S[K]> };
    

export type ResolverWithResolve<TResult, TParent, TContext, TArgs> = {
  resolve: ResolverFn<TResult, TParent, TContext, TArgs>;
};
export type Resolver<TResult, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = ResolverFn<TResult, TParent, TContext, TArgs> | ResolverWithResolve<TResult, TParent, TContext, TArgs>;

export type ResolverFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => Promise<TResult> | TResult;

export type SubscriptionSubscribeFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => AsyncIterable<TResult> | Promise<AsyncIterable<TResult>>;

export type SubscriptionResolveFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;

export interface SubscriptionSubscriberObject<TResult, TKey extends string, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<{ [key in TKey]: TResult }, TParent, TContext, TArgs>;
  resolve?: SubscriptionResolveFn<TResult, { [key in TKey]: TResult }, TContext, TArgs>;
}

export interface SubscriptionResolverObject<TResult, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<any, TParent, TContext, TArgs>;
  resolve: SubscriptionResolveFn<TResult, any, TContext, TArgs>;
}

export type SubscriptionObject<TResult, TKey extends string, TParent, TContext, TArgs> =
  | SubscriptionSubscriberObject<TResult, TKey, TParent, TContext, TArgs>
  | SubscriptionResolverObject<TResult, TParent, TContext, TArgs>;

export type SubscriptionResolver<TResult, TKey extends string, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> =
  | ((...args: any[]) => SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>)
  | SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>;

export type TypeResolveFn<TTypes, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (
  parent: TParent,
  context: TContext,
  info: GraphQLResolveInfo
) => Maybe<TTypes> | Promise<Maybe<TTypes>>;

export type IsTypeOfResolverFn<T = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (obj: T, context: TContext, info: GraphQLResolveInfo) => boolean | Promise<boolean>;

export type NextResolverFn<T> = () => Promise<T>;

export type DirectiveResolverFn<TResult = Record<PropertyKey, never>, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = (
  next: NextResolverFn<TResult>,
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;

/** Mapping of federation types */
export type FederationTypes = {
  Book: Book;
  Customer: Customer;
};

/** Mapping of federation reference types */
export type FederationReferenceTypes = {
  Book:
    ( { __typename: 'Book' }
    & ( GraphQLRecursivePick<FederationTypes['Book'], {"id":true}>
        | GraphQLRecursivePick<FederationTypes['Book'], {"databaseId":true}> ) );
  Customer:
    ( { __typename: 'Customer' }
    & ( GraphQLRecursivePick<FederationTypes['Customer'], {"id":true}>
        | GraphQLRecursivePick<FederationTypes['Customer'], {"databaseId":true}> ) );
};


/** Mapping of interface types */
export type ResolversInterfaceTypes<_RefType extends Record<string, unknown>> = {
  Node:
    | ( BookModel )
    | ( CustomerModel )
  ;
};

/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = {
  AddBookInput: AddBookInput;
  ID: ResolverTypeWrapper<Scalars['ID']['output']>;
  Book: ResolverTypeWrapper<BookModel>;
  BookConnection: ResolverTypeWrapper<BookConnectionModel>;
  BookEdge: ResolverTypeWrapper<BookEdgeModel>;
  BookFilter: BookFilter;
  BookOrder: BookOrder;
  BookOrderField: BookOrderField;
  CacheControlScope: CacheControlScope;
  Customer: ResolverTypeWrapper<CustomerModel>;
  CustomerConnection: ResolverTypeWrapper<CustomerConnectionModel>;
  CustomerEdge: ResolverTypeWrapper<Buyer>;
  Mutation: ResolverTypeWrapper<Record<PropertyKey, never>>;
  NewBuyer: ResolverTypeWrapper<NewBuyerModel>;
  Node: ResolverTypeWrapper<ResolversInterfaceTypes<ResolversTypes>['Node']>;
  OrderDirection: OrderDirection;
  OverflowPagesDistribution: ResolverTypeWrapper<OverflowPagesDistribution>;
  PageInfo: ResolverTypeWrapper<PageInfo>;
  PurchaseStorage: PurchaseStorage;
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  Recommendation: ResolverTypeWrapper<RecommendationModel>;
  RecordPurchaseInput: RecordPurchaseInput;
  RecordPurchasePayload: ResolverTypeWrapper<PurchaseOutcome>;
  SalesStats: ResolverTypeWrapper<SalesStatsModel>;
  Subscription: ResolverTypeWrapper<Record<PropertyKey, never>>;
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  Int: ResolverTypeWrapper<Scalars['Int']['output']>;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
};

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = {
  AddBookInput: AddBookInput;
  ID: Scalars['ID']['output'];
  Book: BookModel;
  BookConnection: BookConnectionModel;
  BookEdge: BookEdgeModel;
  BookFilter: BookFilter;
  BookOrder: BookOrder;
  Customer: CustomerModel;
  CustomerConnection: CustomerConnectionModel;
  CustomerEdge: Buyer;
  Mutation: Record<PropertyKey, never>;
  NewBuyer: NewBuyerModel;
  Node: ResolversInterfaceTypes<ResolversParentTypes>['Node'];
  OverflowPagesDistribution: OverflowPagesDistribution;
  PageInfo: PageInfo;
  Query: Record<PropertyKey, never>;
  Recommendation: RecommendationModel;
  RecordPurchaseInput: RecordPurchaseInput;
  RecordPurchasePayload: PurchaseOutcome;
  SalesStats: SalesStatsModel;
  Subscription: Record<PropertyKey, never>;
  Boolean: Scalars['Boolean']['output'];
  Int: Scalars['Int']['output'];
  String: Scalars['String']['output'];
};

export type CacheControlDirectiveArgs = {
  inheritMaxAge?: Maybe<Scalars['Boolean']['input']>;
  maxAge?: Maybe<Scalars['Int']['input']>;
  scope?: Maybe<CacheControlScope>;
};

export type CacheControlDirectiveResolver<Result, Parent, ContextType = GraphQLContext, Args = CacheControlDirectiveArgs> = DirectiveResolverFn<Result, Parent, ContextType, Args>;

export type CostDirectiveArgs = {
  weight: Scalars['Int']['input'];
};

export type CostDirectiveResolver<Result, Parent, ContextType = GraphQLContext, Args = CostDirectiveArgs> = DirectiveResolverFn<Result, Parent, ContextType, Args>;

export type LinkDirectiveArgs = {
  import?: Maybe<Array<Maybe<Scalars['String']['input']>>>;
  url: Scalars['String']['input'];
};

export type LinkDirectiveResolver<Result, Parent, ContextType = GraphQLContext, Args = LinkDirectiveArgs> = DirectiveResolverFn<Result, Parent, ContextType, Args>;

export type ListSizeDirectiveArgs = {
  assumedSize?: Maybe<Scalars['Int']['input']>;
  requireOneSlicingArgument?: Maybe<Scalars['Boolean']['input']>;
  sizedFields?: Maybe<Array<Scalars['String']['input']>>;
  slicingArguments?: Maybe<Array<Scalars['String']['input']>>;
};

export type ListSizeDirectiveResolver<Result, Parent, ContextType = GraphQLContext, Args = ListSizeDirectiveArgs> = DirectiveResolverFn<Result, Parent, ContextType, Args>;

export type BookResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Book'] = ResolversParentTypes['Book'], FederationReferenceType extends FederationReferenceTypes['Book'] = FederationReferenceTypes['Book']> = {
  __resolveReference?: ReferenceResolver<Maybe<ResolversTypes['Book']> | FederationReferenceType, FederationReferenceType, ContextType>;
  alsoBought?: Resolver<Array<ResolversTypes['Recommendation']>, ParentType, ContextType, RequireFields<BookAlsoBoughtArgs, 'first'>>;
  author?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  customersPurchased?: Resolver<ResolversTypes['CustomerConnection'], ParentType, ContextType, Partial<BookCustomersPurchasedArgs>>;
  databaseId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  globalId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  hasExtras?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  purchaseCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  purchasedBy?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType, RequireFields<BookPurchasedByArgs, 'customerId'>>;
  title?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  year?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type BookConnectionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['BookConnection'] = ResolversParentTypes['BookConnection']> = {
  edges?: Resolver<Array<ResolversTypes['BookEdge']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
  totalCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type BookEdgeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['BookEdge'] = ResolversParentTypes['BookEdge']> = {
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['Book'], ParentType, ContextType>;
};

export type CustomerResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Customer'] = ResolversParentTypes['Customer'], FederationReferenceType extends FederationReferenceTypes['Customer'] = FederationReferenceTypes['Customer']> = {
  __resolveReference?: ReferenceResolver<Maybe<ResolversTypes['Customer']> | FederationReferenceType, FederationReferenceType, ContextType>;
  booksPurchased?: Resolver<ResolversTypes['BookConnection'], ParentType, ContextType, RequireFields<CustomerBooksPurchasedArgs, 'first'>>;
  databaseId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  globalId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
};

export type CustomerConnectionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['CustomerConnection'] = ResolversParentTypes['CustomerConnection']> = {
  edges?: Resolver<Array<ResolversTypes['CustomerEdge']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
  totalCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type CustomerEdgeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['CustomerEdge'] = ResolversParentTypes['CustomerEdge']> = {
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['Customer'], ParentType, ContextType>;
};

export type MutationResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Mutation'] = ResolversParentTypes['Mutation']> = {
  addBook?: Resolver<ResolversTypes['Book'], ParentType, ContextType, RequireFields<MutationAddBookArgs, 'input'>>;
  recordPurchase?: Resolver<ResolversTypes['RecordPurchasePayload'], ParentType, ContextType, RequireFields<MutationRecordPurchaseArgs, 'input'>>;
};

export type NewBuyerResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['NewBuyer'] = ResolversParentTypes['NewBuyer']> = {
  edge?: Resolver<ResolversTypes['CustomerEdge'], ParentType, ContextType>;
  missedBefore?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  purchaseCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type NodeResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Node'] = ResolversParentTypes['Node']> = {
  __resolveType: TypeResolveFn<'Book' | 'Customer', ParentType, ContextType>;
};

export type OverflowPagesDistributionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['OverflowPagesDistribution'] = ResolversParentTypes['OverflowPagesDistribution']> = {
  max?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  median?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  p99?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type PageInfoResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['PageInfo'] = ResolversParentTypes['PageInfo']> = {
  endCursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  hasNextPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  hasPreviousPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  startCursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
};

export type QueryResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = {
  book?: Resolver<Maybe<ResolversTypes['Book']>, ParentType, ContextType, RequireFields<QueryBookArgs, 'id'>>;
  books?: Resolver<ResolversTypes['BookConnection'], ParentType, ContextType, RequireFields<QueryBooksArgs, 'orderBy'>>;
  customer?: Resolver<Maybe<ResolversTypes['Customer']>, ParentType, ContextType, RequireFields<QueryCustomerArgs, 'id'>>;
  node?: Resolver<Maybe<ResolversTypes['Node']>, ParentType, ContextType, RequireFields<QueryNodeArgs, 'id'>>;
  nodes?: Resolver<Array<Maybe<ResolversTypes['Node']>>, ParentType, ContextType, RequireFields<QueryNodesArgs, 'ids'>>;
  salesStats?: Resolver<ResolversTypes['SalesStats'], ParentType, ContextType, RequireFields<QuerySalesStatsArgs, 'top'>>;
  viewer?: Resolver<Maybe<ResolversTypes['Customer']>, ParentType, ContextType>;
};

export type RecommendationResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Recommendation'] = ResolversParentTypes['Recommendation']> = {
  book?: Resolver<ResolversTypes['Book'], ParentType, ContextType>;
  sharedBuyers?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
};

export type RecordPurchasePayloadResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['RecordPurchasePayload'] = ResolversParentTypes['RecordPurchasePayload']> = {
  book?: Resolver<ResolversTypes['Book'], ParentType, ContextType>;
  replayed?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  storedIn?: Resolver<ResolversTypes['PurchaseStorage'], ParentType, ContextType>;
};

export type SalesStatsResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['SalesStats'] = ResolversParentTypes['SalesStats']> = {
  books?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  extraSalesDocuments?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  extraSalesPageSize?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  largestBooks?: Resolver<Array<ResolversTypes['Book']>, ParentType, ContextType>;
  outlierThreshold?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  outliers?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  overflowPagesPerOutlier?: Resolver<ResolversTypes['OverflowPagesDistribution'], ParentType, ContextType>;
};

export type SubscriptionResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Subscription'] = ResolversParentTypes['Subscription']> = {
  bestsellers?: SubscriptionResolver<Array<ResolversTypes['Book']>, "bestsellers", ParentType, ContextType, RequireFields<SubscriptionBestsellersArgs, 'top'>>;
  bookSales?: SubscriptionResolver<ResolversTypes['Book'], "bookSales", ParentType, ContextType, RequireFields<SubscriptionBookSalesArgs, 'ids'>>;
  newBuyers?: SubscriptionResolver<ResolversTypes['NewBuyer'], "newBuyers", ParentType, ContextType, RequireFields<SubscriptionNewBuyersArgs, 'bookId'>>;
};

export type Resolvers<ContextType = GraphQLContext> = {
  Book?: BookResolvers<ContextType>;
  BookConnection?: BookConnectionResolvers<ContextType>;
  BookEdge?: BookEdgeResolvers<ContextType>;
  Customer?: CustomerResolvers<ContextType>;
  CustomerConnection?: CustomerConnectionResolvers<ContextType>;
  CustomerEdge?: CustomerEdgeResolvers<ContextType>;
  Mutation?: MutationResolvers<ContextType>;
  NewBuyer?: NewBuyerResolvers<ContextType>;
  Node?: NodeResolvers<ContextType>;
  OverflowPagesDistribution?: OverflowPagesDistributionResolvers<ContextType>;
  PageInfo?: PageInfoResolvers<ContextType>;
  Query?: QueryResolvers<ContextType>;
  Recommendation?: RecommendationResolvers<ContextType>;
  RecordPurchasePayload?: RecordPurchasePayloadResolvers<ContextType>;
  SalesStats?: SalesStatsResolvers<ContextType>;
  Subscription?: SubscriptionResolvers<ContextType>;
};

export type DirectiveResolvers<ContextType = GraphQLContext> = {
  cacheControl?: CacheControlDirectiveResolver<any, any, ContextType>;
  cost?: CostDirectiveResolver<any, any, ContextType>;
  link?: LinkDirectiveResolver<any, any, ContextType>;
  listSize?: ListSizeDirectiveResolver<any, any, ContextType>;
};
