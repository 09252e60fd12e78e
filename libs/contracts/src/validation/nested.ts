import { plainToInstance, Transform } from 'class-transformer';
import { ValidateNested } from 'class-validator';

type Shape = new () => object;

/** What `@Nested` declared, by class and property: the message contract's generator reads it (the closure hides it from class-validator). */
const NESTED = new WeakMap<object, Map<string, { shape: () => Shape; each: boolean }>>();

/** The class a `@Nested` property holds, and whether it is an array of them; undefined for any other property. */
export function nestedShape(target: object, property: string): { shape: Shape; each: boolean } | undefined {
  for (let at: unknown = target; typeof at === 'function'; at = Object.getPrototypeOf(at)) {
    const found = NESTED.get(at)?.get(property);
    if (found) return { shape: found.shape(), each: found.each };
  }
  return undefined;
}

/**
 * A property holding an object of `shape` (or, with `each`, an array of them): built as that class
 * (its field initialisers are the defaults) and validated with it. Written instead of
 * class-transformer's `@Type`, which needs `reflect-metadata` loaded first (a library, the CLI and
 * the dashboard do not load it). `message`: the problem when the value is not an object (default
 * `must be an object`).
 */
export function Nested(shape: () => Shape, options: { each?: boolean; message?: string } = {}): PropertyDecorator {
  const build = (value: unknown): unknown =>
    typeof value === 'object' && value !== null && !Array.isArray(value) ? plainToInstance(shape(), value, { exposeDefaultValues: true }) : value;
  const transform = Transform(({ value }: { value: unknown }) => (options.each && Array.isArray(value) ? value.map(build) : build(value)));
  const validate = ValidateNested({ each: options.each, ...(options.message !== undefined && { message: options.message }) });
  return (target, property) => {
    const byProperty = NESTED.get(target.constructor) ?? new Map<string, { shape: () => Shape; each: boolean }>();
    NESTED.set(target.constructor, byProperty.set(property as string, { shape, each: options.each ?? false }));
    transform(target, property as string);
    validate(target, property);
    let properties = NESTED_SHAPES.get(target.constructor);
    if (!properties) NESTED_SHAPES.set(target.constructor, (properties = new Map()));
    properties.set(property as string, { shape, each: options.each ?? false });
  };
}

/** What each `@Nested` property holds, by class and property (quick-check.ts compiles from it). */
export const NESTED_SHAPES = new WeakMap<object, Map<string, { shape: () => Shape; each: boolean }>>();
