import { crossVersionSkeleton } from './cross-version-skeleton';
import { onePrevious } from './releases';

/**
 * The support window, one way: each service one release behind the other three (a team that has not
 * shipped yet, or has rolled its service back), on schemas the newer release migrated first.
 */
describe('one service at its previous release, the others at HEAD', () => {
  for (const mix of onePrevious()) crossVersionSkeleton(mix);
});
