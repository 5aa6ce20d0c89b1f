-- Demo seed for the level-loading example: levels database, version 1.
-- Regenerate the binary seed with Seeds/build.sh.
CREATE TABLE levels(ix INTEGER PRIMARY KEY, background TEXT, map BLOB NOT NULL);
-- The player's own progress: shipped empty, carried across upgrades ("preserve" in seeds.json).
CREATE TABLE progress(level INTEGER PRIMARY KEY REFERENCES levels(ix), stars INTEGER NOT NULL DEFAULT 0);
INSERT INTO levels(ix, background, map) VALUES (1, 'forest', X'ff37515366be22266369fd4c3d391878015e7fcc618cde238cb01bc720491b75ff37515366be22266369fd4c3d391878015e7fcc618cde238cb01bc720491b75');
INSERT INTO levels(ix, background, map) VALUES (2, 'cave', X'39a02cdadaa924bf1a7dd708e5f38e6a5001c847521b99801824f29466e2d12939a02cdadaa924bf1a7dd708e5f38e6a5001c847521b99801824f29466e2d129');
INSERT INTO levels(ix, background, map) VALUES (3, 'desert', X'bee08941f5f0e3f5798c13a2214eed3ca9c0907f8b4a29ab15ad6edb761d2e98bee08941f5f0e3f5798c13a2214eed3ca9c0907f8b4a29ab15ad6edb761d2e98');
INSERT INTO levels(ix, background, map) VALUES (4, 'meadow', X'8a0c55bfc5bfc2c8b05848ffaa0c8f2f10649dfc067f36f0cf2d25e7f8174e198a0c55bfc5bfc2c8b05848ffaa0c8f2f10649dfc067f36f0cf2d25e7f8174e19');
INSERT INTO levels(ix, background, map) VALUES (5, 'forest', X'98466945fc6ed2e0885770b8084a8bd4ce0c21906838b21f8f1b62fa3dac730e98466945fc6ed2e0885770b8084a8bd4ce0c21906838b21f8f1b62fa3dac730e');
INSERT INTO levels(ix, background, map) VALUES (6, 'cave', X'727eb59d420bb58982ff958313e52f00836ee9a1b236019dba9d8cd113bc69a2727eb59d420bb58982ff958313e52f00836ee9a1b236019dba9d8cd113bc69a2');
INSERT INTO levels(ix, background, map) VALUES (7, 'desert', X'f00ad7e1fadb3e5a1ae8c26dab904c60bad878bb7daa72d042f86a8b7ef826baf00ad7e1fadb3e5a1ae8c26dab904c60bad878bb7daa72d042f86a8b7ef826ba');
INSERT INTO levels(ix, background, map) VALUES (8, 'meadow', X'ef261894d500e1d9ca3b2a6d3e1a212cc81a7f768aaca9f456e993e693d1e646ef261894d500e1d9ca3b2a6d3e1a212cc81a7f768aaca9f456e993e693d1e646');
INSERT INTO levels(ix, background, map) VALUES (9, 'forest', X'33f891e5549f177db82e54beae3601e94575d6662ef782de91ed4453161d94ad33f891e5549f177db82e54beae3601e94575d6662ef782de91ed4453161d94ad');
INSERT INTO levels(ix, background, map) VALUES (10, 'cave', X'262c1a62f3ff10f5879787e6a4af95c7d4e655df4d8f839015c0db7b5bbd9e3e262c1a62f3ff10f5879787e6a4af95c7d4e655df4d8f839015c0db7b5bbd9e3e');
INSERT INTO levels(ix, background, map) VALUES (11, 'desert', X'9ea18d773f484b7324008832579e7998b0b9752aa75537cd22f2027e3e0290999ea18d773f484b7324008832579e7998b0b9752aa75537cd22f2027e3e029099');
INSERT INTO levels(ix, background, map) VALUES (12, 'meadow', X'11b7bb396b85f6aa0c3253a561c3f23f8a2f4c4b2b968e1cf8268eeefc46a67d11b7bb396b85f6aa0c3253a561c3f23f8a2f4c4b2b968e1cf8268eeefc46a67d');
INSERT INTO levels(ix, background, map) VALUES (13, 'forest', X'ba0cc5938dc49fde4e4ae20dbbf256ba5b305ed8fe0c7e121ca17a9e1e87c4e0ba0cc5938dc49fde4e4ae20dbbf256ba5b305ed8fe0c7e121ca17a9e1e87c4e0');
INSERT INTO levels(ix, background, map) VALUES (14, 'cave', X'd52ee37f892edfc78055deebab800f09a6922491a1ecd0849c458885dd7fb89ad52ee37f892edfc78055deebab800f09a6922491a1ecd0849c458885dd7fb89a');
INSERT INTO levels(ix, background, map) VALUES (15, 'desert', X'dc2a729ddb29a3e3a47b74b2a1ea5d73fed29c5b3e3987cf793285840566a255dc2a729ddb29a3e3a47b74b2a1ea5d73fed29c5b3e3987cf793285840566a255');
INSERT INTO levels(ix, background, map) VALUES (16, 'meadow', X'2fe8b978d6ba8e97ea374e15c119c148e3c207934f1a00a51dbdcc0ec7d221bb2fe8b978d6ba8e97ea374e15c119c148e3c207934f1a00a51dbdcc0ec7d221bb');
INSERT INTO levels(ix, background, map) VALUES (17, 'forest', X'c00657cba3502bf9dadba57619da085d771bbd7ce61471359bffe6aedb0bebd6c00657cba3502bf9dadba57619da085d771bbd7ce61471359bffe6aedb0bebd6');
INSERT INTO levels(ix, background, map) VALUES (18, 'cave', X'5895117295fe232e1efe9a4e140f2a8e2a18ada86703c3bbe3de53e04522045b5895117295fe232e1efe9a4e140f2a8e2a18ada86703c3bbe3de53e04522045b');
INSERT INTO levels(ix, background, map) VALUES (19, 'desert', X'a81e61d07a924e70515fb067a3775f64b496755995c8fcd20c415fb511e10eb1a81e61d07a924e70515fb067a3775f64b496755995c8fcd20c415fb511e10eb1');
INSERT INTO levels(ix, background, map) VALUES (20, 'meadow', X'c86ca2436b13b19f7fb22c4a11a47e0d20021062ef787497c92e01eb263123b1c86ca2436b13b19f7fb22c4a11a47e0d20021062ef787497c92e01eb263123b1');
