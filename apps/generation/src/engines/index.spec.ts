import { createBuiltInEngines } from './index';

describe('createBuiltInEngines', () => {
  it('keys each built-in engine by its name', () => {
    const engines = createBuiltInEngines();
    expect(Object.keys(engines).sort()).toEqual(['audio', 'image', 'instant', 'mesh', 'video']);
    for (const [name, engine] of Object.entries(engines)) expect(engine.name).toBe(name);
  });
});
