// The dashboard's stylesheet, on stylelint's standard rules with two exceptions.
export default {
  extends: ['stylelint-config-standard'],
  rules: {
    // Class names are kebab-case, but a run's or a job's state is drawn with the state itself as its class
    // (`SUCCEEDED`, `TIMED_OUT`), spelled as the API spells it.
    'selector-class-pattern': [
      '^([a-z][a-z0-9]*(-[a-z0-9]+)*|[A-Z][A-Z_]*)$',
      { message: 'a class is kebab-case, or a state as the API spells it' },
    ],
    // The sheet is ordered by where a thing appears on the page, not by specificity: a narrower rule for one place
    // (`.toolbar .field`) may come before the general one (`.field`), and wins over it wherever both match, whatever
    // their order, as meant.
    'no-descending-specificity': null,
  },
};
