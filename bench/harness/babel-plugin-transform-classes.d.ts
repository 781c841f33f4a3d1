/**
 * Types for Babel 7's class transform, which ships none. Babel 7 (not 8) because Babel 8 needs Node 22
 * and this project supports Node 20 (npm warned EBADENGINE on install).
 */
declare module '@babel/plugin-transform-classes' {
  import type { PluginItem } from '@babel/core';

  const plugin: PluginItem;
  export default plugin;
}
