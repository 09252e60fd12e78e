import { ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { DomainError, ValidationError } from '@gen/errors';
import { validationMessages } from '../http-common/validation-messages';

/** What a route that takes a JSON body answers when none came (empty, or no body at all). */
export const MISSING_BODY_MESSAGE = 'The request body is empty; send a JSON object with Content-Type: application/json.';

/**
 * The ValidationPipe, plus one rule: a route that takes a body (a DTO class) and got none (an empty
 * body is parsed as none, so that routes without a body accept it) is `400` saying so.
 */
class BodyValidationPipe extends ValidationPipe {
  override transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && value === undefined && typeof metadata.metatype === 'function' && metadata.metatype !== Object) {
      throw new DomainError('bad_request', MISSING_BODY_MESSAGE);
    }
    return super.transform(value, metadata) as Promise<unknown>;
  }
}

/** Validates every DTO: unknown fields are refused, and the message names each bad field once. */
export function createValidationPipe(): ValidationPipe {
  return new BodyValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const text = validationMessages(errors).join('; ');
      return new ValidationError(text || 'The request body is not valid.');
    },
  });
}
