// A GraphQL name (what the document's operation may be called) of at most 64 bytes: longer or other names never get
// a metrics label of their own, so that each label's bytes are bounded whatever clients send.
const OPERATION_LABEL = /^[_A-Za-z][_0-9A-Za-z]{0,63}$/;

/** Whether `name` may have a metrics label of its own; METRICS_OPERATIONS lists only such names. */
export const isOperationLabel = (name: string): boolean => OPERATION_LABEL.test(name);

/** The most operation names METRICS_OPERATIONS may list, half of the labels /metrics holds. */
export const MAX_LISTED_OPERATIONS = 50;
