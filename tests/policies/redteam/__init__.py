"""Red-team suite: unsafe programs and stack configs the packs must refuse, each with a safe control."""
