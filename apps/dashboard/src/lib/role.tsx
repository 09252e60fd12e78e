import { createContext, useContext } from 'react';
import { type MemberRole, roleAtLeast } from '../api/api';

/** The signed-in user's role on the current account; pages hide what it cannot do (the server refuses it anyway). */
export const RoleContext = createContext<MemberRole>('viewer');

/** Whether the current role includes `needed` (owner ⊇ admin ⊇ developer ⊇ viewer). */
export function useCan(): (needed: MemberRole) => boolean {
  const role = useContext(RoleContext);
  return (needed) => roleAtLeast(role, needed);
}

export function useRole(): MemberRole {
  return useContext(RoleContext);
}
