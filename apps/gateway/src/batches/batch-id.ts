import { ParseUUIDPipe } from '@nestjs/common';
import { NotFoundError } from '@gen/errors';

/** What a route of one batch answers for an id that is not a batch id (a UUID). */
export const BATCH_ID_NOT_FOUND = 'No batch with that id.';

/** The `:id` of a batch route (API and dashboard): anything but a UUID is 404, as an unknown id is. */
export const batchId = () => new ParseUUIDPipe({ exceptionFactory: () => new NotFoundError(BATCH_ID_NOT_FOUND) });
