-- Demo seed for the level-loading example: levels database, version 2.
-- Regenerate the binary seed with Seeds/build.sh.
CREATE TABLE levels(ix INTEGER PRIMARY KEY, background TEXT, map BLOB NOT NULL);
-- The player's own progress: shipped empty, carried across upgrades ("preserve" in seeds.json).
CREATE TABLE progress(level INTEGER PRIMARY KEY REFERENCES levels(ix), stars INTEGER NOT NULL DEFAULT 0);
INSERT INTO levels(ix, background, map) VALUES (1, 'forest-hd', X'6242f02296373d4a480c33afb54f016c0ea167ebc92594f74f83f952254b8b996242f02296373d4a480c33afb54f016c0ea167ebc92594f74f83f952254b8b99');
INSERT INTO levels(ix, background, map) VALUES (2, 'cave-hd', X'7e12d50296f34c85e0f8f29c01625f94c0b2887ad91f97673ea950a2d88fd3457e12d50296f34c85e0f8f29c01625f94c0b2887ad91f97673ea950a2d88fd345');
INSERT INTO levels(ix, background, map) VALUES (3, 'desert-hd', X'6228b1f397ac873b5740bdf150196a52b258d37ea524031aca99869dbdd9cf346228b1f397ac873b5740bdf150196a52b258d37ea524031aca99869dbdd9cf34');
INSERT INTO levels(ix, background, map) VALUES (4, 'glacier', X'143fdff948ff6432e51b4d0470136ac99836519c4b1b7b90fd47915c0a157291143fdff948ff6432e51b4d0470136ac99836519c4b1b7b90fd47915c0a157291');
INSERT INTO levels(ix, background, map) VALUES (5, 'meadow-hd', X'ec94c372b27c941d566a6f4a96e2239381ab7a30f5a4cc761cb34bbb93aa6e4dec94c372b27c941d566a6f4a96e2239381ab7a30f5a4cc761cb34bbb93aa6e4d');
INSERT INTO levels(ix, background, map) VALUES (6, 'forest-hd', X'e41c3bb46f2f42ee14e35fb608d44d72c9bb05878c7618c45b5b553fd4d39c84e41c3bb46f2f42ee14e35fb608d44d72c9bb05878c7618c45b5b553fd4d39c84');
INSERT INTO levels(ix, background, map) VALUES (7, 'cave-hd', X'6ce5c664785e5c8e06bf63a9a38de3cf9f5050fc3787d86756429b8a9b586a8f6ce5c664785e5c8e06bf63a9a38de3cf9f5050fc3787d86756429b8a9b586a8f');
INSERT INTO levels(ix, background, map) VALUES (8, 'desert-hd', X'789d2263d5950341f147840a08c8cd9f37273598f5b79c2950fcdbdd0de46be6789d2263d5950341f147840a08c8cd9f37273598f5b79c2950fcdbdd0de46be6');
INSERT INTO levels(ix, background, map) VALUES (9, 'glacier', X'f0687fe72824ceef72f6f4a406af8d35c959f72a48a1ef3bb9104a98c6804809f0687fe72824ceef72f6f4a406af8d35c959f72a48a1ef3bb9104a98c6804809');
INSERT INTO levels(ix, background, map) VALUES (10, 'meadow-hd', X'16e9fcec59a9fddd9f0d817996fe36a6dd57f698567fca3aeb7c5c423932e8e416e9fcec59a9fddd9f0d817996fe36a6dd57f698567fca3aeb7c5c423932e8e4');
INSERT INTO levels(ix, background, map) VALUES (11, 'forest-hd', X'cb7868713dda589da5e7871aec3bfeb806ac261fc725ba426d693b6a1cad349dcb7868713dda589da5e7871aec3bfeb806ac261fc725ba426d693b6a1cad349d');
INSERT INTO levels(ix, background, map) VALUES (12, 'cave-hd', X'cedb06175879651ca66e6e00bce6c182605863a14d2f067dc0f238bfdb13d1a6cedb06175879651ca66e6e00bce6c182605863a14d2f067dc0f238bfdb13d1a6');
INSERT INTO levels(ix, background, map) VALUES (13, 'desert-hd', X'fc07a441db8f4a0979de79cdea522789f0261d7ce3e7036da2aa001470f75cebfc07a441db8f4a0979de79cdea522789f0261d7ce3e7036da2aa001470f75ceb');
INSERT INTO levels(ix, background, map) VALUES (14, 'glacier', X'2d47e7ea4001d8c1ce6e14c1bdd4001daee724ea4b1c05c17b9f06edb774c51f2d47e7ea4001d8c1ce6e14c1bdd4001daee724ea4b1c05c17b9f06edb774c51f');
INSERT INTO levels(ix, background, map) VALUES (15, 'meadow-hd', X'c41c44c9de2384648b375cf7b1a017e22f24a4fe741e32f57949ccedb9edaac7c41c44c9de2384648b375cf7b1a017e22f24a4fe741e32f57949ccedb9edaac7');
INSERT INTO levels(ix, background, map) VALUES (16, 'forest-hd', X'12871268aa380d48c9171e298e8900e9629467322cc961750c92274ad46a4a1e12871268aa380d48c9171e298e8900e9629467322cc961750c92274ad46a4a1e');
INSERT INTO levels(ix, background, map) VALUES (17, 'cave-hd', X'127b95fa469d896b577ab65e529d530d3de9c43aeb813b16af2f4e9aa37b912f127b95fa469d896b577ab65e529d530d3de9c43aeb813b16af2f4e9aa37b912f');
INSERT INTO levels(ix, background, map) VALUES (18, 'desert-hd', X'6d249420710655c2692360c64807761c467121488fdb8f9b33b8e8e28fa35adb6d249420710655c2692360c64807761c467121488fdb8f9b33b8e8e28fa35adb');
INSERT INTO levels(ix, background, map) VALUES (19, 'glacier', X'c72a69d445bf9704ced7bf49570de00b84d274ea2f243c1fba59528d9dcbdfa9c72a69d445bf9704ced7bf49570de00b84d274ea2f243c1fba59528d9dcbdfa9');
INSERT INTO levels(ix, background, map) VALUES (20, 'meadow-hd', X'65b90ef6308f7d6025830f4e3308bf52d529a2528c50a149dbed36fdac86b3a165b90ef6308f7d6025830f4e3308bf52d529a2528c50a149dbed36fdac86b3a1');
INSERT INTO levels(ix, background, map) VALUES (21, 'forest-hd', X'f02ca9abf6dba67d91cf19fb02401879dda0ceb702f5755b87fcc72f0531e55ef02ca9abf6dba67d91cf19fb02401879dda0ceb702f5755b87fcc72f0531e55e');
INSERT INTO levels(ix, background, map) VALUES (22, 'cave-hd', X'1804e112380a03df232a26e8b60a10809eff87fff673d57a43ad9f2fd2a568b41804e112380a03df232a26e8b60a10809eff87fff673d57a43ad9f2fd2a568b4');
INSERT INTO levels(ix, background, map) VALUES (23, 'desert-hd', X'e935ca993c54143bfc5af7f8e3949e2d146ca09074648249338ae02d1a1ba60fe935ca993c54143bfc5af7f8e3949e2d146ca09074648249338ae02d1a1ba60f');
INSERT INTO levels(ix, background, map) VALUES (24, 'glacier', X'983d2b8c65696d4c90ef7aaa995f0907ec862f82d8000eba076258066c919fdf983d2b8c65696d4c90ef7aaa995f0907ec862f82d8000eba076258066c919fdf');
