package dev.punctual.api.function;

import static org.assertj.core.api.Assertions.assertThat;

import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/** Reading the API's listings (items and a nextCursor) as the tests do. */
final class Listings {
    private Listings() {}

    /** The {@code field} of each item of the first page (up to 100) of the listing at {@code path}. */
    static List<String> listed(RequestSpecification caller, String path, String field) {
        return caller.queryParam("limit", 100)
                .get(path)
                .then()
                .statusCode(200)
                .extract()
                .jsonPath()
                .getList("items." + field, String.class);
    }

    /**
     * Reads the listing at {@code path} one item a page, following the cursors (50 pages at the most, so that a
     * cursor that never ends cannot hang the test), giving each page to {@code page}; how many pages it read.
     */
    static int pageByPage(Supplier<RequestSpecification> request, String path, Consumer<JsonPath> page) {
        String cursor = null;
        int pages = 0;
        do {
            var req = request.get().queryParam("limit", 1);
            if (cursor != null) {
                req = req.queryParam("cursor", cursor);
            }
            JsonPath items = req.get(path).then().statusCode(200).extract().jsonPath();
            assertThat(items.getList("items")).hasSizeLessThanOrEqualTo(1);
            page.accept(items);
            cursor = items.getString("nextCursor");
            pages++;
        } while (cursor != null && pages < 50);
        return pages;
    }
}
