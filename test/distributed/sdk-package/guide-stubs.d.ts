// What the customer guide's TypeScript examples (docs/guide/quickstart.md) take from their
// surroundings: the environment, the customer's own functions, and the slice of Express they use.
declare const process: { env: Record<string, string | undefined> };
declare function alreadySeen(deliveryId: string): Promise<boolean>;
declare function saveOutput(generationId: string, outputUrl: string): Promise<void>;
declare function markFailed(generationId: string, error: string): Promise<void>;
declare function notifyBilling(available: number, threshold: number): Promise<void>;

declare module 'express' {
  interface Request {
    body: Uint8Array;
    headers: Record<string, string | string[] | undefined>;
  }
  interface Response {
    sendStatus(status: number): Response;
  }
  interface App {
    post(path: string, middleware: unknown, handler: (req: Request, res: Response) => Promise<unknown>): void;
  }
  function express(): App;
  namespace express {
    function raw(options: { type: string }): unknown;
  }
  export default express;
}
