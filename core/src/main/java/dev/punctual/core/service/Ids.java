package dev.punctual.core.service;

import java.security.SecureRandom;

/** Opaque random ids with a type prefix, e.g. {@code job_7k2m…}: 100 bits of randomness in lowercase base32. */
public final class Ids {
    private static final char[] ALPHABET = "abcdefghijklmnopqrstuvwxyz234567".toCharArray();
    private static final SecureRandom RANDOM = new SecureRandom();

    private Ids() {}

    public static String next(String prefix) {
        StringBuilder sb = new StringBuilder(prefix).append('_');
        for (int i = 0; i < 20; i++) {
            sb.append(ALPHABET[RANDOM.nextInt(ALPHABET.length)]);
        }
        return sb.toString();
    }

    public static boolean looksLike(String prefix, String id) {
        return id != null && id.matches(prefix + "_[a-z2-7]{20}");
    }
}
