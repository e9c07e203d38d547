// @mh/eval: record/replay and the eval toolkit. Exports are added as the modules land.
export {};
