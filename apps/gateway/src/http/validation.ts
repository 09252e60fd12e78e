import { ValidationError as ClassValidatorError, ValidationPipe } from '@nestjs/common';
import { ValidationError } from '@gen/errors';

function messages(errors: ClassValidatorError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((text) =>
      text.startsWith(error.property) ? `${parent ? parent + '.' : ''}${text}` : `${path}: ${text}`,
    );
    return [...own, ...messages(error.children ?? [], path)];
  });
}

/** Validates every DTO: unknown fields are refused, and the message names each bad field. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const text = messages(errors)
        .map((m) => m.replace(/^property (\S+) should not exist$/, '$1: unknown field'))
        .join('; ');
      return new ValidationError(text || 'The request body is not valid.');
    },
  });
}
