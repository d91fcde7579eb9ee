package dev.punctual.core.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class IdsTest {

    @Test
    void idsArePrefixedLowercaseBase32() {
        String id = Ids.next("job");
        assertThat(id).matches("job_[a-z2-7]{20}");
        assertThat(Ids.looksLike("job", id)).isTrue();
    }

    @Test
    void idsAreDistinct() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 2000; i++) {
            ids.add(Ids.next("bin"));
        }
        assertThat(ids).hasSize(2000);
    }

    @Test
    void looksLikeRejectsOtherShapes() {
        String id = Ids.next("job");
        assertThat(Ids.looksLike("bin", id)).as("other prefix").isFalse();
        assertThat(Ids.looksLike("job", null)).isFalse();
        assertThat(Ids.looksLike("job", "")).isFalse();
        assertThat(Ids.looksLike("job", id + "a")).as("too long").isFalse();
        assertThat(Ids.looksLike("job", id.substring(0, id.length() - 1)))
                .as("too short")
                .isFalse();
        assertThat(Ids.looksLike("job", id.toUpperCase())).as("upper case").isFalse();
        assertThat(Ids.looksLike("job", "job_" + "0".repeat(20)))
                .as("0 is not base32")
                .isFalse();
        assertThat(Ids.looksLike("job", "job-" + id.substring(4)))
                .as("separator")
                .isFalse();
    }
}
