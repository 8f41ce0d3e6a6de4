// The collection's document validation (its `validator`, `validationLevel` and
// `validationAction` options) as the write unit sees it: an interface, injected into the
// catalog at start-up. Validators are query filters ($expr and $jsonSchema included), and
// the query language lives above the catalog, so the implementation does too
// (src/commands/crud/document-validation.ts).

import type { BsonDocument } from '../bson/types.js';
import { isPlainDocument } from '../bson/types.js';
import { invariant } from '../errors.js';
import type { Collection } from './collection.js';

export interface DocumentValidator {
  /**
   * Checks a document about to be stored in `coll`. `before` is the stored version an update
   * replaces (undefined for an insert): validationLevel 'moderate' does not check a document
   * that already failed. Throws DocumentValidationFailure, or logs under validationAction 'warn'.
   */
  check(coll: Collection, doc: BsonDocument, before: BsonDocument | undefined): void;
}

/**
 * The validator of a catalog opened without a server (unit tests, tools): it refuses to write
 * into a collection that has a validator, so a missing injection cannot skip validation.
 */
export const noValidatorInstalled: DocumentValidator = {
  check(coll) {
    const spec = coll.meta.options['validator'];
    invariant(
      !isPlainDocument(spec) || Object.keys(spec).length === 0,
      `no document validator installed for ${coll.ns}, which has a validator`,
    );
  },
};
