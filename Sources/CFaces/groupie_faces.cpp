#include "groupie_faces.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

namespace {

/* One classifier for the process, loaded on first use. A CascadeClassifier must not be used by
 * two threads at once, so every detection holds the lock: faces are looked for once per sticker
 * collage, never on an upload. */
std::mutex lock;
cv::CascadeClassifier classifier;
std::string loaded;

}  // namespace

extern "C" int groupie_faces_detect(const unsigned char *gray, int width, int height, int stride, const char *cascade_path,
                                    groupie_face *faces, int capacity) {
    if (!gray || !cascade_path || width < 1 || height < 1 || stride < width || capacity < 0) return -1;
    try {
        std::lock_guard<std::mutex> guard(lock);
        if (loaded != cascade_path) {
            if (!classifier.load(cascade_path)) {
                loaded.clear();
                return -1;
            }
            loaded = cascade_path;
        }
        cv::Mat image(height, width, CV_8UC1, const_cast<unsigned char *>(gray), static_cast<size_t>(stride));
        cv::Mat equalized;
        cv::equalizeHist(image, equalized);
        std::vector<cv::Rect> found;
        /* Faces of at least a twentieth of the short side: a group photo's faces, not the
         * pattern of a jumper. */
        int smallest = std::max(20, std::min(width, height) / 20);
        classifier.detectMultiScale(equalized, found, 1.1, 5, 0, cv::Size(smallest, smallest));
        std::sort(found.begin(), found.end(), [](const cv::Rect &a, const cv::Rect &b) { return a.area() > b.area(); });
        int count = std::min(capacity, static_cast<int>(found.size()));
        for (int i = 0; i < count; i++) faces[i] = groupie_face{found[i].x, found[i].y, found[i].width, found[i].height};
        return count;
    } catch (const std::exception &) {
        return -1;
    }
}
