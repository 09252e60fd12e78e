import { ParseUUIDPipe } from '@nestjs/common';
import { NotFoundError } from '@gen/errors';

/** What a route of one generation answers for an id that is not a generation id (a UUID). */
export const GENERATION_ID_NOT_FOUND = 'No generation with that id.';

/** The `:id` of a generation route (API and dashboard): anything but a UUID is 404, as an unknown id is. */
export const generationId = () => new ParseUUIDPipe({ exceptionFactory: () => new NotFoundError(GENERATION_ID_NOT_FOUND) });
