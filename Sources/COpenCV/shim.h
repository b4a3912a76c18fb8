// OpenCV's object detection (libopencv-objdetect-dev), linked for CFaces, whose C++ includes
// its headers from /usr/include/opencv4. Its API is C++: nothing of it is shown to Swift here.
