import type { GraphQLResolveInfo } from 'graphql';
import type { SalesDocument } from '../../sales/documents';
import type { BookConnectionModel, CustomerConnectionModel } from '../models';
import type { PurchaseEntry } from '../../sales/customers';
import type { PurchaseOutcome } from '../../sales/purchase-requests';
import type { SalesStats as SalesStatsModel } from '../../sales/stats';
import type { GraphQLContext } from '../context';
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
export type Book = {
  __typename?: 'Book';
  /** The book's author. */
  author: Scalars['String']['output'];
  /**
   * The customers who bought the book, in purchase order, a page at a time.
   * A customer who bought the book twice appears twice.
   */
  customersPurchased: CustomerConnection;
  /**
   * True when the book is an outlier: its purchases outgrew the book document
   * and the later ones are stored in the `extra_sales` collection.
   */
  hasExtras: Scalars['Boolean']['output'];
  /** The book's id: a decimal integer, a 24-character hex ObjectId, or any other string, as stored. */
  id: Scalars['ID']['output'];
  /** How many purchases the book has had, read from the stored count. */
  purchaseCount: Scalars['Int']['output'];
  /** The book's title. */
  title: Scalars['String']['output'];
  /** The year the book was published, when known. */
  year?: Maybe<Scalars['Int']['output']>;
};


/** A book in the catalog with its sales. */
export type BookCustomersPurchasedArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};

/** A page of books. */
export type BookConnection = {
  __typename?: 'BookConnection';
  /** The books on this page, in id order. */
  edges: Array<BookEdge>;
  /** Where this page lies in the whole list. */
  pageInfo: PageInfo;
  /**
   * How many books the catalog holds in all, from the database's own count of the collection, read in
   * constant time: exact in normal operation, possibly off after an unclean shutdown of MongoDB and, on a
   * sharded cluster, while chunk migrations leave orphaned copies.
   */
  totalCount: Scalars['Int']['output'];
};

/** One book in a page of books. */
export type BookEdge = {
  __typename?: 'BookEdge';
  /** Opaque position of this book, to pass as `after` for the next page. */
  cursor: Scalars['String']['output'];
  /** The book. */
  node: Book;
};

/** A customer of the bookstore, known here only by id. */
export type Customer = {
  __typename?: 'Customer';
  /** The customer's id, as given to `recordPurchase`. */
  id: Scalars['ID']['output'];
};

/** A page of a book's buyers. */
export type CustomerConnection = {
  __typename?: 'CustomerConnection';
  /** The purchases on this page, in purchase order. */
  edges: Array<CustomerEdge>;
  /** Where this page lies in the whole list. */
  pageInfo: PageInfo;
  /** How many purchases the book has in all, across every page. */
  totalCount: Scalars['Int']['output'];
};

/** One purchase in a book's list of buyers. */
export type CustomerEdge = {
  __typename?: 'CustomerEdge';
  /** Opaque position of this purchase, to pass as `after` for the next page. */
  cursor: Scalars['String']['output'];
  /** The customer who made the purchase. */
  node: Customer;
};

/** Entry points for changing the catalog. */
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
   */
  recordPurchase: RecordPurchasePayload;
};


/** Entry points for changing the catalog. */
export type MutationAddBookArgs = {
  input: AddBookInput;
};


/** Entry points for changing the catalog. */
export type MutationRecordPurchaseArgs = {
  input: RecordPurchaseInput;
};

/** The distribution of overflow pages over the books that have any; every figure is 0 when none has. */
export type OverflowPagesDistribution = {
  __typename?: 'OverflowPagesDistribution';
  /** The most pages any book has. */
  max: Scalars['Int']['output'];
  /** The median number of pages (50th percentile, nearest rank). */
  median: Scalars['Int']['output'];
  /** The 99th percentile of pages (nearest rank). */
  p99: Scalars['Int']['output'];
};

/** Relay page information for a connection paged forward with `first` and `after`. */
export type PageInfo = {
  __typename?: 'PageInfo';
  /** The cursor of the last item on this page, or null when the page is empty. */
  endCursor?: Maybe<Scalars['String']['output']>;
  /** True when more items follow this page. */
  hasNextPage: Scalars['Boolean']['output'];
  /** True when items precede this page, that is when `after` was given. */
  hasPreviousPage: Scalars['Boolean']['output'];
  /** The cursor of the first item on this page, or null when the page is empty. */
  startCursor?: Maybe<Scalars['String']['output']>;
};

/** Where a purchase was stored. */
export type PurchaseStorage =
  /** In the book document's own `customers_purchased` array. */
  | 'EMBEDDED'
  /** In an `extra_sales` page, because the book's embedded array was full. */
  | 'EXTRA_SALES';

/** Entry points for reading the catalog. */
export type Query = {
  __typename?: 'Query';
  /** One book by its id, or null when no book has that id. */
  book?: Maybe<Book>;
  /** All books, ordered by id (integers, then strings, then ObjectIds), a page at a time. */
  books: BookConnection;
  /**
   * How the catalog's outliers stand: counts, overflow pages per outlier, the largest books, and
   * the settings in force. `npm run report` prints the same figures.
   */
  salesStats: SalesStats;
};


/** Entry points for reading the catalog. */
export type QueryBookArgs = {
  id: Scalars['ID']['input'];
};


/** Entry points for reading the catalog. */
export type QueryBooksArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};


/** Entry points for reading the catalog. */
export type QuerySalesStatsArgs = {
  top?: InputMaybe<Scalars['Int']['input']>;
};

/** A purchase to record. */
export type RecordPurchaseInput = {
  /** The id of the book bought. */
  bookId: Scalars['ID']['input'];
  /** The id of the customer who bought it: 1 to 128 characters. */
  customerId: Scalars['ID']['input'];
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
  /** The book, including the purchase just recorded. */
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
  /** Purchases embedded in a book before it overflows, as configured for this server. */
  outlierThreshold: Scalars['Int']['output'];
  /** How many books are outliers (flagged `has_extras`). */
  outliers: Scalars['Int']['output'];
  /** How many `extra_sales` pages each book with overflow has. */
  overflowPagesPerOutlier: OverflowPagesDistribution;
};



export type ResolverTypeWrapper<T> = Promise<T> | T;


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





/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = {
  AddBookInput: AddBookInput;
  Book: ResolverTypeWrapper<SalesDocument>;
  BookConnection: ResolverTypeWrapper<BookConnectionModel>;
  BookEdge: ResolverTypeWrapper<SalesDocument>;
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  Customer: ResolverTypeWrapper<Customer>;
  CustomerConnection: ResolverTypeWrapper<CustomerConnectionModel>;
  CustomerEdge: ResolverTypeWrapper<PurchaseEntry>;
  ID: ResolverTypeWrapper<Scalars['ID']['output']>;
  Int: ResolverTypeWrapper<Scalars['Int']['output']>;
  Mutation: ResolverTypeWrapper<Record<PropertyKey, never>>;
  OverflowPagesDistribution: ResolverTypeWrapper<OverflowPagesDistribution>;
  PageInfo: ResolverTypeWrapper<PageInfo>;
  PurchaseStorage: PurchaseStorage;
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  RecordPurchaseInput: RecordPurchaseInput;
  RecordPurchasePayload: ResolverTypeWrapper<PurchaseOutcome>;
  SalesStats: ResolverTypeWrapper<SalesStatsModel>;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
};

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = {
  AddBookInput: AddBookInput;
  Book: SalesDocument;
  BookConnection: BookConnectionModel;
  BookEdge: SalesDocument;
  Boolean: Scalars['Boolean']['output'];
  Customer: Customer;
  CustomerConnection: CustomerConnectionModel;
  CustomerEdge: PurchaseEntry;
  ID: Scalars['ID']['output'];
  Int: Scalars['Int']['output'];
  Mutation: Record<PropertyKey, never>;
  OverflowPagesDistribution: OverflowPagesDistribution;
  PageInfo: PageInfo;
  Query: Record<PropertyKey, never>;
  RecordPurchaseInput: RecordPurchaseInput;
  RecordPurchasePayload: PurchaseOutcome;
  SalesStats: SalesStatsModel;
  String: Scalars['String']['output'];
};

export type BookResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Book'] = ResolversParentTypes['Book']> = {
  author?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  customersPurchased?: Resolver<ResolversTypes['CustomerConnection'], ParentType, ContextType, RequireFields<BookCustomersPurchasedArgs, 'first'>>;
  hasExtras?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  purchaseCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  title?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  year?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
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

export type CustomerResolvers<ContextType = GraphQLContext, ParentType extends ResolversParentTypes['Customer'] = ResolversParentTypes['Customer']> = {
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
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
  books?: Resolver<ResolversTypes['BookConnection'], ParentType, ContextType, RequireFields<QueryBooksArgs, 'first'>>;
  salesStats?: Resolver<ResolversTypes['SalesStats'], ParentType, ContextType, RequireFields<QuerySalesStatsArgs, 'top'>>;
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

export type Resolvers<ContextType = GraphQLContext> = {
  Book?: BookResolvers<ContextType>;
  BookConnection?: BookConnectionResolvers<ContextType>;
  BookEdge?: BookEdgeResolvers<ContextType>;
  Customer?: CustomerResolvers<ContextType>;
  CustomerConnection?: CustomerConnectionResolvers<ContextType>;
  CustomerEdge?: CustomerEdgeResolvers<ContextType>;
  Mutation?: MutationResolvers<ContextType>;
  OverflowPagesDistribution?: OverflowPagesDistributionResolvers<ContextType>;
  PageInfo?: PageInfoResolvers<ContextType>;
  Query?: QueryResolvers<ContextType>;
  RecordPurchasePayload?: RecordPurchasePayloadResolvers<ContextType>;
  SalesStats?: SalesStatsResolvers<ContextType>;
};

